// Total parsers for the image fields ImageLocality reads: node status.images and container images.
import { isRecord } from './fields.ts';

/** A node with no images (shared, frozen in spirit: never written). */
export const NO_IMAGES: ReadonlyMap<string, number> = new Map();

const noStrings: readonly string[] = Object.freeze([]);

/**
 * kube 1.34's normalizedImageName: appends `:latest` when the reference has no tag, i.e.
 * when its last `:` does not come after its last `/` (so `host:5000/app` gets one, and a
 * digest `app@sha256:…` does not). Nothing else: no `docker.io/library/` prefix is added or
 * removed, so `nginx` matches a node image named `nginx:latest` but not
 * `docker.io/library/nginx:latest`, exactly as kube 1.34 matches them.
 */
export function normalizedImageName(name: string): string {
  return name.lastIndexOf(':') <= name.lastIndexOf('/') ? `${name}:latest` : name;
}

/**
 * `status.images` as kube's scheduler cache reads it: every name of every entry, as the
 * kubelet reported it (not normalized), with that entry's `sizeBytes`. A name listed twice
 * keeps its first size. An absent `sizeBytes` is 0 (Go's zero value); an entry whose
 * `sizeBytes` is not an integer, or a name that is not a non-empty string, is skipped
 * (kube could not have decoded it). Never throws.
 */
export function parseNodeImages(value: unknown): ReadonlyMap<string, number> {
  if (!Array.isArray(value) || value.length === 0) return NO_IMAGES;
  let out: Map<string, number> | undefined;
  for (const image of value) {
    if (!isRecord(image) || !Array.isArray(image.names)) continue;
    const raw = image.sizeBytes;
    const size = raw === undefined || raw === null ? 0 : raw;
    if (typeof size !== 'number' || !Number.isInteger(size)) continue;
    for (const name of image.names) {
      if (typeof name !== 'string' || name.length === 0) continue;
      out ??= new Map();
      if (!out.has(name)) out.set(name, size);
    }
  }
  return out ?? NO_IMAGES;
}

function pushContainerImages(containers: unknown, out: string[]): void {
  if (!Array.isArray(containers)) return;
  for (const c of containers) {
    if (!isRecord(c)) continue;
    // A missing image (which the API server rejects) is Go's "" and normalizes to ":latest".
    out.push(normalizedImageName(typeof c.image === 'string' ? c.image : ''));
  }
}

/**
 * The normalized image of each container that ImageLocality scores, in kube 1.34's order:
 * `spec.initContainers` then `spec.containers`, one entry per container (duplicates kept:
 * kube sums per container). Ephemeral containers are not scheduled and not listed. An
 * element that is not an object is skipped. Never throws.
 */
export function parsePodImages(spec: Record<string, unknown>): readonly string[] {
  const out: string[] = [];
  pushContainerImages(spec.initContainers, out);
  pushContainerImages(spec.containers, out);
  return out.length === 0 ? noStrings : out;
}

/**
 * The normalized `spec.volumes[].image.reference` of each image volume, in volume order
 * (duplicates kept: kube 1.36+'s ImageLocality sums per volume and, from 1.37, counts each
 * one beside the containers). An `image` without a string `reference` is Go's "" and
 * normalizes to ":latest"; a volume or an `image` that is not an object is skipped (kube
 * could not have decoded it). Never throws.
 */
export function parsePodImageVolumes(spec: Record<string, unknown>): readonly string[] {
  const volumes = spec.volumes;
  if (!Array.isArray(volumes)) return noStrings;
  let out: string[] | undefined;
  for (const v of volumes) {
    if (!isRecord(v) || !isRecord(v.image)) continue;
    const reference = v.image.reference;
    out ??= [];
    out.push(normalizedImageName(typeof reference === 'string' ? reference : ''));
  }
  return out ?? noStrings;
}
