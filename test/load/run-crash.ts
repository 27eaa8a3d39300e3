/**
 * `npm run test:load`: the long crash-recovery run (the test suite runs a short one).
 * Options: --workers N (default 8), --kills N (default 20), --keep (keep the home for inspection).
 * Exits 1 when any promise was broken.
 */
import { runCrashRecovery } from './crash.js';

function flag(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}

const report = await runCrashRecovery({
  workers: flag('workers', 8),
  kills: flag('kills', 20),
  minGapMs: 300,
  maxGapMs: 2500,
  keepHome: process.argv.includes('--keep'),
  log: (l) => console.log(l),
});
console.log(JSON.stringify(report, null, 2));
const broken = report.violations.filter((v) => !v.startsWith('(note)'));
if (broken.length) {
  console.error(`${broken.length} violations`);
  process.exit(1);
}
console.log(`ok: ${report.kills} kills, ${report.acked.msg ?? 0} messages, ${report.acked.task ?? 0} tasks, ${report.acked.file ?? 0} files acknowledged; nothing lost or doubled`);
