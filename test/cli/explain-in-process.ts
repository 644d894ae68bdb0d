// Runs `berth explain` in the test's own process, capturing what it prints and the CliError it ends with.
import { vi } from 'vitest';
import { CliError } from '../../src/cli/errors.ts';
import { explainCommand } from '../../src/cli/explain-command.ts';

/** Runs `berth explain ARGV` here; returns its stdout and the CliError it threw, if any. */
export async function inProcess(
  ...argv: string[]
): Promise<{ out: string; error: CliError | undefined }> {
  let out = '';
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out += String(chunk);
    return true;
  });
  try {
    await explainCommand(argv);
    return { out, error: undefined };
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    return { out, error };
  } finally {
    spy.mockRestore();
  }
}
