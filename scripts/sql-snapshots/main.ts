/** `npm run sql:snapshots`: writes the services' SQL snapshots (render.ts) in the repository. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderSqlSnapshots } from './render';

const root = path.resolve(__dirname, '../..');
void renderSqlSnapshots().then((files) => {
  for (const [file, text] of Object.entries(files)) {
    writeFileSync(path.join(root, file), text);
    process.stdout.write(`wrote ${file}\n`);
  }
});
