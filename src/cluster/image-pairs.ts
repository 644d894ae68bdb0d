// The [name, size] pairs snapshots hold image sizes in, read back into a Map.

/** [name, number] pairs (as snapshots write node images and image sizes) as a Map, in order; malformed data goes to `fail`. */
export function imagePairs(
  pairs: unknown,
  what: string,
  fail: (message: string) => never,
): Map<string, number> {
  if (!Array.isArray(pairs)) fail(`${what} is not a list`);
  const out = new Map<string, number>();
  pairs.forEach((p: unknown, i) => {
    if (!Array.isArray(p) || typeof p[0] !== 'string' || typeof p[1] !== 'number')
      fail(`${what}[${i}] is not a [name, size] pair`);
    out.set(p[0], p[1]);
  });
  return out;
}
