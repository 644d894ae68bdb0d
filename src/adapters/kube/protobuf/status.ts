// An API error answered in protobuf (a meta/v1 Status), turned into the JSON text the error paths read.
import protobuf from 'protobufjs/minimal.js';
import { bytesField, hasK8sMagic, k8sMagic } from './envelope.ts';

/**
 * The JSON text of the Status in a protobuf error body (`k8s\0`, runtime.Unknown, Status:
 * status 2, message 3, reason 4, code 6), or undefined when the body is not one. kube-apiserver
 * answers an error in the media type the request accepted, so a protobuf list's 403 or 410
 * comes as protobuf.
 */
export function protobufStatusText(body: Buffer): string | undefined {
  if (!hasK8sMagic(body)) return undefined;
  try {
    const raw = bytesField(body.subarray(k8sMagic.length), 2);
    if (raw === undefined) return undefined;
    const status: Record<string, unknown> = { kind: 'Status', apiVersion: 'v1' };
    const r = protobuf.Reader.create(raw);
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === 18) status.status = r.string();
      else if (tag === 26) status.message = r.string();
      else if (tag === 34) status.reason = r.string();
      else if (tag === 48) status.code = r.int32();
      else r.skipType(tag & 7);
    }
    return JSON.stringify(status);
  } catch {
    return undefined;
  }
}
