// Large answers (snapshot text, evaluate_script JSON) are cached per tab as `{id, text}` and
// handed out in pages of at most maxBytes; a cursor `<id>:<byte offset>` names the next one
// and turns STALE once a newer answer replaced the cached one.
import { HelperError } from "./errors.js";
import { ERROR_CODES } from "./protocol.js";

/**
 * The page of `cached.text` at `offset`: `{chunk, offset, nextCursor, totalBytes}`
 * (`cached.bytes`, the text's UTF-8 length, when the engine gave it; null while `cached`
 * holds only the start of a longer text).
 */
export function pageOf(eng, cached, offset, maxBytes) {
  // read_page's text pages by sections: each page opens with its heading where it can.
  const p = cached.sections ? eng.pageBySections(cached.text, offset, maxBytes) : eng.page(cached.text, offset, maxBytes);
  return {
    chunk: p.chunk,
    offset,
    nextCursor: p.nextOffset == null ? null : `${cached.id}:${p.nextOffset}`,
    // Unknown while only the start of the text was read (reading.js `partial`).
    totalBytes: cached.partial ? null : (cached.bytes ?? new TextEncoder().encode(cached.text).length),
  };
}

/**
 * The page a cursor names. `prefix` is the id letter of this kind of answer (`s`, `r`),
 * `what` its name in messages, `hint` what to do once it is superseded.
 */
export function pageAtCursor(eng, cached, cursor, maxBytes, { prefix, what, tab, hint }) {
  const m = cursorOf(cursor, prefix);
  if (!m) {
    throw new HelperError(ERROR_CODES.INVALID_ARGUMENT, `\`${cursor}\` is not a ${what} cursor`, "pass the nextCursor of the previous page");
  }
  if (cached?.id !== m[1]) {
    throw new HelperError(
      ERROR_CODES.STALE,
      `${what} ${m[1]} of tab ${tab.id} was superseded${cached ? ` by ${cached.id}` : ""}`,
      hint,
    );
  }
  return pageOf(eng, cached, Number(m[2]), maxBytes);
}

/** A cursor `<prefix><n>:<offset>` split: `[cursor, id, offset]`, or null. */
export function cursorOf(cursor, prefix) {
  return new RegExp(`^(${prefix}\\d+):(\\d+)$`).exec(cursor);
}
