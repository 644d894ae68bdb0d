// What every Kubernetes protobuf body shares: the `k8s\0` prefix, and reading one field of a whole small message.
import protobuf from 'protobufjs/minimal.js';
import { ProtoFormatError } from './decode.ts';

/** The four bytes every Kubernetes protobuf body starts with: `k8s\0`. */
export const k8sMagic = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** The media type of Kubernetes' protobuf encoding. */
export const protobufMediaType = 'application/vnd.kubernetes.protobuf';

/** Whether `bytes` begins with the `k8s\0` prefix. */
export function hasK8sMagic(bytes: Uint8Array): boolean {
  return bytes.length >= k8sMagic.length && k8sMagic.equals(bytes.subarray(0, k8sMagic.length));
}

/**
 * The bytes of the last length-delimited field `number` of the message `bytes` (all of it
 * present), or undefined when it has none. Malformed bytes throw a ProtoFormatError.
 */
export function bytesField(bytes: Uint8Array, number: number): Buffer | undefined {
  try {
    const r = protobuf.Reader.create(bytes);
    let found: Uint8Array | undefined;
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === ((number << 3) | 2)) found = r.bytes();
      else r.skipType(tag & 7);
    }
    return found === undefined
      ? undefined
      : Buffer.from(found.buffer, found.byteOffset, found.length);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    throw new ProtoFormatError(`a list header is not valid protobuf: ${message}`, { cause: err });
  }
}

/** Field `number` of `bytes` as UTF-8 text ('' when absent). */
export function stringField(bytes: Uint8Array, number: number): string {
  return bytesField(bytes, number)?.toString('utf8') ?? '';
}
