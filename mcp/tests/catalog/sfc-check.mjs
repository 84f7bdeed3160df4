// Compiles every .vue and .svelte file named on the command line with the official compilers
// (vue/compiler-sfc, svelte/compiler from $SFC_MODULES); exits 1 on an error or a warning.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(process.env.SFC_MODULES + '/');
const vue = require('vue/compiler-sfc');
const svelte = require('svelte/compiler');
let failed = 0;
for (const file of process.argv.slice(2)) {
  const source = readFileSync(file, 'utf8');
  try {
    if (file.endsWith('.vue')) {
      const { descriptor, errors } = vue.parse(source, { filename: file });
      if (errors.length) throw errors[0];
      const script = vue.compileScript(descriptor, { id: 'x', inlineTemplate: true });
      if (!script.content.includes('export default')) throw new Error('no component');
    } else {
      const out = svelte.compile(source, { filename: file, generate: 'client' });
      for (const w of out.warnings) { console.log(`${file}: warning ${w.code}: ${w.message}`); failed++; }
    }
    console.log(`${file}: ok`);
  } catch (e) {
    console.log(`${file}: ${e.message ?? e}`);
    failed++;
  }
}
process.exit(failed ? 1 : 0);
