// Human-readable output: the run summary and a progress bar for long runs.
import type { RunSummary } from '../runtime/summary.ts';

const maxPendingShown = 10;

/** Renders a summary for people. */
export function formatSummary(title: string, s: RunSummary): string {
  const lines = [
    title,
    `  nodes          ${s.nodes}`,
    `  pods           ${s.pods}`,
    `  scheduled      ${s.scheduled}`,
    `  unschedulable  ${s.unschedulable}`,
    `  throughput     ${s.podsPerSecond.toLocaleString('en-US')} pods/s (${s.elapsedMs} ms)`,
    `  digest         ${s.decisionDigest}`,
  ];
  const pending = Object.entries(s.pending);
  if (pending.length > 0) {
    lines.push(
      '',
      `Pending pods${pending.length > maxPendingShown ? ` (first ${maxPendingShown} of ${pending.length})` : ''}:`,
    );
    for (const [key, reason] of pending.slice(0, maxPendingShown))
      lines.push(`  ${key}: ${reason}`);
  }
  const placements = Object.entries(s.placements);
  if (placements.length > 0 && placements.length <= 20) {
    lines.push('', 'Placements:');
    for (const [key, node] of placements) {
      const devices = s.devices[key];
      lines.push(`  ${key} → ${node}${devices === undefined ? '' : ` (${devices.join(', ')})`}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** A one-line progress bar on a TTY stream; a no-op elsewhere. */
export function progressBar(
  stream: NodeJS.WriteStream,
  total: number,
  label: string,
): { update(done: number): void; end(): void } {
  if (!stream.isTTY || total < 1000) return { update: () => {}, end: () => {} };
  const width = 30;
  let last = -1;
  return {
    update(done: number) {
      const pct = Math.min(100, Math.floor((done / total) * 100));
      if (pct === last) return;
      last = pct;
      const filled = Math.round((pct / 100) * width);
      stream.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${pct}%`);
    },
    end() {
      if (last >= 0) stream.write('\r\x1b[2K');
    },
  };
}
