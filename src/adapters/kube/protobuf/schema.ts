// The shape of the generated protobuf table, and its lookup form: per message, field number → how to read it.

/** One field: [protobuf number, JSON name, type, flags]. See `k8sSchema` for the flags. */
export type ProtoFieldRow = readonly [number, string, string, number];

/** Message name (e.g. `core.Pod`) → its fields. */
export type ProtoSchema = { readonly [message: string]: readonly ProtoFieldRow[] };

/** A field ready for decoding. */
export interface ProtoField {
  readonly json: string;
  /** A scalar name (`string`, `int64`, …), a message name, or `@Special`. */
  readonly type: string;
  readonly repeated: boolean;
  /** The Go field is not a pointer and its JSON tag says omitempty: a zero value is left out. */
  readonly omitZero: boolean;
  /** The Go field is an inlined struct: its fields land in the enclosing JSON object. */
  readonly inline: boolean;
  /** For `map<K,V>` fields: the value type (keys are strings in every Kubernetes map). */
  readonly mapValue: string | undefined;
}

/** Message name → field number → field. */
export type CompiledSchema = ReadonlyMap<string, ReadonlyMap<number, ProtoField>>;

/** Builds the lookup maps of a schema table once. */
export function compileSchema(schema: ProtoSchema): CompiledSchema {
  const out = new Map<string, Map<number, ProtoField>>();
  for (const [name, rows] of Object.entries(schema)) {
    const fields = new Map<number, ProtoField>();
    for (const [number, json, type, flags] of rows) {
      const map = /^map:\w+:(.+)$/.exec(type);
      fields.set(number, {
        json,
        type: map ? 'map' : type,
        repeated: (flags & 1) !== 0,
        omitZero: (flags & 2) !== 0,
        inline: (flags & 4) !== 0,
        mapValue: map?.[1],
      });
    }
    out.set(name, fields);
  }
  return out;
}
