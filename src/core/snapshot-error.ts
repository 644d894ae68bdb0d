// The error a snapshot that cannot be restored raises (its own file: gangs and pod actors throw it, snapshot.ts reads their data).

/** Why a snapshot cannot be restored. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(`snapshot: ${message}`);
    this.name = 'SnapshotError';
  }
}
