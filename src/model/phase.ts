// Pod phases: a pod that Succeeded or Failed has finished and holds no capacity on its node.

/** True for the phases a pod never leaves (`Succeeded`, `Failed`): it has finished. */
export function isTerminal(phase: unknown): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}
