// Node scripts the image e2e test runs inside berth's container (it has no ps, no find): its processes and /app's contents, as JSON.

/** What a process inside the container looks like in /proc. */
export interface ProcEntry {
  pid: number;
  ppid: number;
  state: string;
  uid: number;
  cmdline: string[];
}

/** Lists the container's processes from /proc (runs node in the container; it has no ps). */
export const listProcesses = `
const fs = require('node:fs');
const out = [];
for (const d of fs.readdirSync('/proc')) {
  if (!/^[0-9]+$/.test(d)) continue;
  try {
    const stat = fs.readFileSync('/proc/' + d + '/stat', 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const uid = /^Uid:\\s+(\\d+)/m.exec(fs.readFileSync('/proc/' + d + '/status', 'utf8'))[1];
    const cmdline = fs.readFileSync('/proc/' + d + '/cmdline', 'utf8').split('\\0').filter(Boolean);
    out.push({ pid: Number(d), ppid: Number(rest[1]), state: rest[0], uid: Number(uid), cmdline });
  } catch {}
}
console.log(JSON.stringify(out));
`;

/** Lists /app's packages (node_modules paths as package-lock.json names them) and .ts files. */
export const listContents = `
const fs = require('node:fs');
const path = require('node:path');
const packages = [];
const tsFiles = [];
function walkModules(dir) {
  for (const name of fs.existsSync(dir) ? fs.readdirSync(dir) : []) {
    if (name.startsWith('.')) continue;
    const full = path.join(dir, name);
    if (name.startsWith('@')) { walkModules(full); continue; }
    if (!fs.existsSync(path.join(full, 'package.json'))) continue;
    packages.push(path.relative('/app', full));
    walkModules(path.join(full, 'node_modules'));
  }
}
function walkTs(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) { if (full !== '/app/node_modules') walkTs(full); }
    else if (/\\.(c|m)?ts$/.test(e.name) && !/\\.d\\.(c|m)?ts$/.test(e.name)) tsFiles.push(full);
  }
}
walkModules('/app/node_modules');
walkTs('/app');
console.log(JSON.stringify({ packages, tsFiles, top: fs.readdirSync('/app').sort() }));
`;
