// Writes the licences of the npm packages bundled into app.js (the runtime dependencies of package.json) into one
// file that ships beside it in the jar.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
let out = 'Third-party software bundled into the tandem dashboard (app.js):\n';
for (const name of Object.keys(pkg.dependencies)) {
  const dir = `node_modules/${name}`;
  const meta = JSON.parse(readFileSync(`${dir}/package.json`, 'utf8'));
  const file = readdirSync(dir).find((f) => /^licen[cs]e/i.test(f));
  if (!file) throw new Error(`${name} has no licence file`);
  out += `\n==== ${name} ${meta.version} (${meta.license}) ====\n\n` + readFileSync(`${dir}/${file}`, 'utf8');
}
writeFileSync(process.argv[2], out);
