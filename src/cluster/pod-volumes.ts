// Parses a pod's spec.volumes into the sources the volume plugins read (claims, in-tree disks).
import { isRecord, nonEmptyString } from './fields.ts';

/**
 * An in-tree disk, as a pod volume or a PersistentVolume may name it. VolumeRestrictions
 * reads the first four (kube's disk conflicts); NodeVolumeLimits translates the migratable
 * ones (EBS, GCE PD, Azure Disk, Cinder, Portworx) to their CSI driver. Azure File and
 * vSphere are migratable but never counted (their migration is off in the scheduler), so
 * they carry nothing. Absent strings are `''`, absent booleans false, as the API's zero
 * values.
 */
export type InTreeDisk =
  | { type: 'gcePersistentDisk'; pdName: string; partition: number; readOnly: boolean }
  | { type: 'awsElasticBlockStore'; volumeID: string; readOnly: boolean }
  | { type: 'rbd'; monitors: readonly string[]; pool: string; image: string; readOnly: boolean }
  | { type: 'iscsi'; iqn: string; readOnly: boolean }
  | { type: 'azureDisk'; diskURI: string; kind: string }
  | { type: 'cinder'; volumeID: string }
  | { type: 'portworxVolume'; volumeID: string }
  | { type: 'azureFile' }
  | { type: 'vsphereVolume' };

/**
 * One pod volume the scheduler reads, by `spec.volumes[].name`: a PersistentVolumeClaim
 * (`claimName` as written, `''` when absent), a generic ephemeral volume (its claim is
 * `<pod name>-<volume name>`), or an in-tree disk. Other sources (emptyDir, configMap,
 * secret, hostPath, inline CSI, …) constrain no placement and are left out. Plain JSON.
 */
export type PodVolume = { name: string } & (
  | { type: 'persistentVolumeClaim'; claimName: string }
  | { type: 'ephemeral' }
  | InTreeDisk
);

/** Shared by every pod without such volumes. */
export const noVolumes: readonly PodVolume[] = Object.freeze([]);

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const bool = (v: unknown): boolean => v === true;
const int = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) ? v : 0);
const strings = (v: unknown): string[] =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];

/**
 * The in-tree disk a volume source object names, in kube's field order, or undefined.
 * Total: a malformed field reads as its zero value.
 */
export function parseInTreeDisk(src: Record<string, unknown>): InTreeDisk | undefined {
  const { gcePersistentDisk: gce, awsElasticBlockStore: ebs, rbd, iscsi } = src;
  if (isRecord(gce)) {
    const { pdName, partition, readOnly } = gce;
    return {
      type: 'gcePersistentDisk',
      pdName: str(pdName),
      partition: int(partition),
      readOnly: bool(readOnly),
    };
  }
  if (isRecord(ebs)) {
    return {
      type: 'awsElasticBlockStore',
      volumeID: str(ebs.volumeID),
      readOnly: bool(ebs.readOnly),
    };
  }
  if (isRecord(rbd)) {
    const { monitors, pool, image, readOnly } = rbd;
    return {
      type: 'rbd',
      monitors: strings(monitors),
      pool: str(pool),
      image: str(image),
      readOnly: bool(readOnly),
    };
  }
  if (isRecord(iscsi))
    return { type: 'iscsi', iqn: str(iscsi.iqn), readOnly: bool(iscsi.readOnly) };
  const { azureDisk, cinder, portworxVolume } = src;
  if (isRecord(azureDisk))
    return { type: 'azureDisk', diskURI: str(azureDisk.diskURI), kind: str(azureDisk.kind) };
  if (isRecord(cinder)) return { type: 'cinder', volumeID: str(cinder.volumeID) };
  if (isRecord(portworxVolume))
    return { type: 'portworxVolume', volumeID: str(portworxVolume.volumeID) };
  if (isRecord(src.azureFile)) return { type: 'azureFile' };
  if (isRecord(src.vsphereVolume)) return { type: 'vsphereVolume' };
  return undefined;
}

function parseVolume(v: unknown): PodVolume | undefined {
  if (!isRecord(v)) return undefined;
  const name = nonEmptyString(v.name) ?? '';
  // The API allows one source per volume; a malformed volume with several is read by the
  // first in this order (claim, ephemeral, then kube's in-tree order).
  const pvc = v.persistentVolumeClaim;
  if (isRecord(pvc)) return { name, type: 'persistentVolumeClaim', claimName: str(pvc.claimName) };
  if (isRecord(v.ephemeral)) return { name, type: 'ephemeral' };
  const disk = parseInTreeDisk(v);
  return disk === undefined ? undefined : { name, ...disk };
}

/**
 * The volumes of a pod spec that the volume plugins read, in spec order. Never throws: a
 * non-list or a malformed entry is skipped, a malformed field reads as its zero value.
 */
export function parsePodVolumes(spec: unknown): readonly PodVolume[] {
  if (!isRecord(spec) || !Array.isArray(spec.volumes)) return noVolumes;
  const out: PodVolume[] = [];
  for (const v of spec.volumes) {
    const parsed = parseVolume(v);
    if (parsed !== undefined) out.push(parsed);
  }
  return out.length === 0 ? noVolumes : out;
}

/**
 * The claim a volume uses, or undefined for an in-tree disk: `claimName` for a PVC volume,
 * `<pod name>-<volume name>` for a generic ephemeral one (kube's ephemeral.VolumeClaimName).
 */
export function claimNameOf(podName: string, v: PodVolume): string | undefined {
  if (v.type === 'persistentVolumeClaim') return v.claimName;
  if (v.type === 'ephemeral') return `${podName}-${v.name}`;
  return undefined;
}
