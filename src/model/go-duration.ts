// Go's duration text (`15s`, `1m30s`, `500ms`, `1.5h`), as kube's configs and flags spell durations.

const unitMs: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Milliseconds of a Go duration (surrounding blanks ignored); undefined for any other text. */
export function goDurationMs(value: string): number | undefined {
  const text = value.trim();
  if (text === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  while (at < text.length) {
    part.lastIndex = at;
    const m = part.exec(text);
    if (m === null) break;
    ms += Number(m[1]) * (unitMs[m[2] as string] ?? Number.NaN);
    at = part.lastIndex;
  }
  return text === '' || at !== text.length || !Number.isFinite(ms) ? undefined : ms;
}
