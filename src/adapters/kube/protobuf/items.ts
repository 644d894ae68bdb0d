// Pod and Node list items from protobuf: decoded straight into their trimmed JSON form.

import { nodeShape, podShape } from '../../trim.ts';
import { MessageDecoder } from './decode.ts';
import { k8sSchema } from './schema.generated.ts';
import { compileSchema } from './schema.ts';

/** Turns the bytes of one list item into the object the JSON path would have trimmed it to. */
export type ProtoItemDecoder = (item: Uint8Array) => unknown;

let decoder: MessageDecoder | undefined;

/** The decoder of every message Pod and Node reach (the schema is compiled on first use). */
export function k8sDecoder(): MessageDecoder {
  decoder ??= new MessageDecoder(compileSchema(k8sSchema));
  return decoder;
}

/** A Pod as trimPod keeps it. Throws ProtoFormatError on bytes that are not a Pod. */
export const decodePodItem: ProtoItemDecoder = (item) =>
  k8sDecoder().decodeObject(item, 'core.Pod', podShape);

/** A Node as trimNode keeps it. Throws ProtoFormatError on bytes that are not a Node. */
export const decodeNodeItem: ProtoItemDecoder = (item) =>
  k8sDecoder().decodeObject(item, 'core.Node', nodeShape);
