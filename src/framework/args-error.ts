// The error a plugin factory throws for arguments kube would refuse, naming the field.

/**
 * A plugin argument kube's validation would refuse: `field` is its path inside the args
 * ('' for the args themselves), `problem` what is wrong, in kube's words where kube has
 * some. The config reader turns it into an error at the field's path in the file.
 */
export class ArgsError extends Error {
  override name = 'ArgsError';
  constructor(
    readonly plugin: string,
    readonly field: string,
    readonly problem: string,
  ) {
    super(`${plugin}: ${field === '' ? '' : `${field}: `}${problem}`);
  }
}

/** A value as an error message shows it (JSON, cut to 60 characters). */
export function shownValue(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
