// Splits a Kubernetes list's JSON body, as it streams in, into the text of each item of its `items`.

/** A list body that is not a JSON object whose `items` is an array of objects. */
export class ListFormatError extends Error {
  override name = 'ListFormatError';
}

/** What a whole list said besides its items. */
export interface ListMetadata {
  resourceVersion: string;
  /** The token of the next page; undefined on the last page. */
  continue: string | undefined;
}

const openBrace = 0x7b;
const closeBrace = 0x7d;
const openBracket = 0x5b;
const closeBracket = 0x5d;
const quote = 0x22;
const comma = 0x2c;
const backslash = 0x5c;

/** The index of the first `{ } [ ] " ,` at or after `from`, or -1. */
function nextStructural(buf: string, from: number): number {
  for (let i = from; i < buf.length; i++) {
    const c = buf.charCodeAt(i);
    if (
      c === quote ||
      c === comma ||
      c === openBrace ||
      c === closeBrace ||
      c === openBracket ||
      c === closeBracket
    )
      return i;
  }
  return -1;
}

/** The text before the items array ends with its key. */
const itemsKey = /"items"\s*:\s*$/;

/**
 * Feed it the body's text in chunks (`push`), then `end()`. Each item of the top-level
 * `items` array is handed to `onItem` as text as soon as its last character arrives, so the
 * caller can parse and fold it while the rest is still on the wire. Everything else (kind,
 * apiVersion, metadata) is kept and parsed at the end, which also checks the body is JSON.
 * Only the current item and the text since it started are held, never the whole body.
 */
export class ListSplitter {
  private buf = '';
  private pos = 0;
  private depth = 0;
  private inString = false;
  private inItems = false;
  private seenItems = false;
  /** The next thing at the items' depth must start an item (after `[` or `,`). */
  private expectItem = false;
  private itemStart = -1;
  /** Where the not yet kept text of the rest of the list starts (-1 inside the items). */
  private restFrom = 0;
  private rest = '';

  constructor(private readonly onItem: (text: string) => void) {}

  /** Scans one more chunk of the body; throws ListFormatError on a body that is not a list. */
  push(chunk: string): void {
    this.buf += chunk;
    this.scan();
    const keepFrom =
      this.itemStart >= 0 ? this.itemStart : this.restFrom >= 0 ? this.restFrom : this.pos;
    if (keepFrom > 0) {
      this.buf = this.buf.slice(keepFrom);
      this.pos -= keepFrom;
      if (this.itemStart >= 0) this.itemStart -= keepFrom;
      if (this.restFrom >= 0) this.restFrom -= keepFrom;
    }
  }

  /** The list's metadata once the body is complete; throws ListFormatError if it is not. */
  end(): ListMetadata {
    if (this.depth !== 0 || this.inString || !this.seenItems || this.restFrom < 0)
      throw new ListFormatError('the list ended early or has no items array');
    let list: { metadata?: { resourceVersion?: unknown; continue?: unknown } };
    try {
      list = JSON.parse(this.rest + this.buf.slice(this.restFrom)) as typeof list;
    } catch (error) {
      throw new ListFormatError(`the list is not JSON: ${(error as Error).message}`);
    }
    const meta = list.metadata ?? {};
    return {
      resourceVersion: typeof meta.resourceVersion === 'string' ? meta.resourceVersion : '',
      continue:
        typeof meta.continue === 'string' && meta.continue !== '' ? meta.continue : undefined,
    };
  }

  private scan(): void {
    const buf = this.buf;
    for (;;) {
      if (this.inString && !this.skipString()) return;
      const at = nextStructural(buf, this.pos);
      if (at === -1) {
        this.pos = buf.length;
        return;
      }
      const c = buf.charCodeAt(at);
      this.pos = at + 1;
      if (this.expectItem) {
        this.expectItem = false;
        if (c === closeBracket && this.depth === 2) {
          // An empty items array.
        } else if (c === openBrace) this.itemStart = at;
        else throw new ListFormatError('a list item is not an object');
      }
      switch (c) {
        case quote:
          this.inString = true;
          break;
        case openBrace:
        case openBracket:
          this.depth++;
          if (c === openBracket && this.depth === 2 && !this.seenItems) this.openItems(at);
          break;
        case closeBrace:
        case closeBracket:
          this.depth--;
          if (this.inItems && this.depth === 2) this.endItem(at);
          else if (this.inItems && this.depth === 1) {
            this.inItems = false;
            this.restFrom = at;
          } else if (this.depth < 0) throw new ListFormatError('unbalanced brackets');
          break;
        case comma:
          if (this.inItems && this.depth === 2) this.expectItem = true;
          break;
      }
    }
  }

  /** Moves past the closing quote of the current string; false if it has not arrived yet. */
  private skipString(): boolean {
    const buf = this.buf;
    let j = buf.indexOf('"', this.pos);
    while (j !== -1) {
      let slashes = 0;
      while (buf.charCodeAt(j - 1 - slashes) === backslash) slashes++;
      if (slashes % 2 === 0) break;
      j = buf.indexOf('"', j + 1);
    }
    if (j === -1) {
      // The backslashes before a quote still to come are counted then: the string's text is kept.
      this.pos = buf.length;
      return false;
    }
    this.inString = false;
    this.pos = j + 1;
    return true;
  }

  /** A `[` one level in: the items array if its key is `items`. */
  private openItems(at: number): void {
    const before = this.buf.slice(this.restFrom, at);
    if (!itemsKey.test(before)) return;
    this.rest += `${before}[`;
    this.restFrom = -1;
    this.inItems = true;
    this.seenItems = true;
    this.expectItem = true;
  }

  private endItem(at: number): void {
    const text = this.buf.slice(this.itemStart, at + 1);
    this.itemStart = -1;
    this.onItem(text);
  }
}
