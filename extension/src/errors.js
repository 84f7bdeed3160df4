// Errors that reach the host as `{code, message, hint, data}` with a code from the protocol's
// one error table.
import { ERROR_CODES, METHOD_SPECS } from "./protocol.js";

export class HelperError extends Error {
  constructor(code, message, hint, data) {
    super(message);
    this.code = code;
    this.hint = hint;
    this.data = data;
  }
}

/** The wire form of any thrown value; unknown failures are INTERNAL. */
export function errorBody(e) {
  if (e instanceof HelperError) {
    const body = { code: e.code, message: e.message };
    if (e.hint) body.hint = e.hint;
    if (e.data !== undefined) body.data = e.data;
    return body;
  }
  return { code: ERROR_CODES.INTERNAL, message: String(e?.message ?? e) };
}

const JSON_TYPES = {
  string: (v) => typeof v === "string",
  integer: (v) => Number.isInteger(v),
  number: (v) => typeof v === "number" && Number.isFinite(v),
  boolean: (v) => typeof v === "boolean",
  array: (v) => Array.isArray(v),
  object: (v) => v !== null && typeof v === "object" && !Array.isArray(v),
  // A field value: text, or a checkbox's state.
  "string|boolean": (v) => typeof v === "string" || typeof v === "boolean",
};

/** Checks `params` against the method's schema from protocol.js; throws INVALID_ARGUMENT. */
export function checkParams(method, params) {
  const spec = METHOD_SPECS[method];
  if (params === undefined || params === null) params = {};
  if (!JSON_TYPES.object(params)) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${method}\` params must be an object`);
  }
  for (const [name, p] of Object.entries(spec?.params ?? {})) {
    if (!(name in params) || params[name] === null) {
      if (p.required) {
        throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${method}\` needs \`${name}\` (${p.type}: ${p.doc})`);
      }
      continue;
    }
    if (!JSON_TYPES[p.type]?.(params[name])) {
      throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${method}\`: \`${name}\` must be of type ${p.type}`);
    }
  }
  return params;
}
