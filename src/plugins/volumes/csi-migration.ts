// In-tree volumes as CSI volumes (kube's csi-translation-lib), for counting attach limits per driver.
import type { InTreeDisk } from '../../cluster/pod-volumes.ts';
import type { CSINodeInfo, PersistentVolumeInfo } from '../../cluster/volume-objects.ts';

/** A volume as a CSI driver sees it: kube counts `driver/handle` once per node. */
export interface CSIVolume {
  driver: string;
  handle: string;
}

/** Why an inline volume could not be translated (kube makes the Filter fail with Error). */
export interface TranslationError {
  error: string;
}

/** In-tree plugin name and CSI driver of each migratable source type (kube's csi-translation-lib). */
const plugins: Readonly<Record<string, { plugin: string; driver: string }>> = {
  awsElasticBlockStore: { plugin: 'kubernetes.io/aws-ebs', driver: 'ebs.csi.aws.com' },
  gcePersistentDisk: { plugin: 'kubernetes.io/gce-pd', driver: 'pd.csi.storage.gke.io' },
  azureDisk: { plugin: 'kubernetes.io/azure-disk', driver: 'disk.csi.azure.com' },
  cinder: { plugin: 'kubernetes.io/cinder', driver: 'cinder.csi.openstack.org' },
  portworxVolume: { plugin: 'kubernetes.io/portworx-volume', driver: 'pxd.portworx.com' },
  azureFile: { plugin: 'kubernetes.io/azure-file', driver: 'file.csi.azure.com' },
  vsphereVolume: { plugin: 'kubernetes.io/vsphere-volume', driver: 'csi.vsphere.vmware.com' },
};

const byPluginName: ReadonlyMap<string, string> = new Map(
  Object.values(plugins).map((p) => [p.plugin, p.driver]),
);

/** kube's IsInlineMigratable / IsPVMigratable: a source csi-translation-lib can translate. */
export function isMigratable(v: { readonly type: string }): boolean {
  return Object.hasOwn(plugins, v.type);
}

/** kube's IsMigratableIntreePluginByName: a provisioner that names an in-tree plugin. */
export function isMigratablePluginName(provisioner: string): boolean {
  return byPluginName.has(provisioner);
}

/** The CSI driver an in-tree plugin name migrates to (kube's GetCSINameFromInTreeName). */
export function csiDriverOfPlugin(plugin: string): string | undefined {
  return byPluginName.get(plugin);
}

/** The in-tree plugin name of a migratable source, or undefined. */
export function pluginOf(v: { readonly type: string }): string | undefined {
  return Object.hasOwn(plugins, v.type) ? plugins[v.type]?.plugin : undefined;
}

/**
 * kube 1.34's isCSIMigrationOn for NodeVolumeLimits: never without a CSINode; always for
 * EBS, GCE PD, Azure Disk and Cinder; for Portworx (GA, locked on) when the CSINode's
 * migrated-plugins annotation lists it; never for the others (Azure File, vSphere).
 */
export function csiMigrationOn(csiNode: CSINodeInfo | undefined, plugin: string): boolean {
  if (csiNode === undefined || plugin === '') return false;
  switch (plugin) {
    case 'kubernetes.io/aws-ebs':
    case 'kubernetes.io/gce-pd':
    case 'kubernetes.io/azure-disk':
    case 'kubernetes.io/cinder':
      return true;
    case 'kubernetes.io/portworx-volume':
      return csiNode.migratedPlugins.includes(plugin);
    default:
      return false;
  }
}

const awsVolumeID = /^vol-[^/]*$/;

/** kube's KubernetesVolumeIDToEBSVolumeID: `aws://zone/vol-…` or a bare ID. */
function ebsVolumeID(id: string): string | TranslationError {
  const prefix = 'aws://';
  if (!id.startsWith(prefix)) return id;
  const rest = id.slice(prefix.length);
  const slash = rest.indexOf('/');
  const path = slash < 0 ? '' : rest.slice(slash).replace(/^\/+|\/+$/g, '');
  if (!awsVolumeID.test(path)) return { error: `Invalid format for AWS volume (${id})` };
  return path;
}

const unspecified = 'UNSPECIFIED';

/** kube's gceGetRegionFromZones: all zones `{locale}-{region}-{zone}` of one region. */
function gceRegion(zones: readonly string[]): string | undefined {
  const regions = new Set<string>();
  for (const z of zones) {
    const parts = z.split('-');
    if (parts.length !== 3) return undefined;
    regions.add(parts.slice(0, 2).join('-'));
  }
  return regions.size === 1 ? [...regions][0] : undefined;
}

/** The GCE PD handle of a PV: zonal, regional (several zones) or unspecified. */
function gcePVHandle(pdName: string, pv: PersistentVolumeInfo): string | undefined {
  const label = (key: string) => pv.topologyLabels.find(([k]) => k === key)?.[1] ?? '';
  const zonesLabel =
    label('failure-domain.beta.kubernetes.io/zone') || label('topology.kubernetes.io/zone');
  const zones = zonesLabel.split('__');
  if (zones.length === 1 && zones[0] !== '')
    return `projects/${unspecified}/zones/${zones[0]}/disks/${pdName}`;
  if (zones.length > 1) {
    const region = gceRegion(zones);
    return region === undefined
      ? undefined
      : `projects/${unspecified}/regions/${region}/disks/${pdName}`;
  }
  return `projects/${unspecified}/zones/${unspecified}/disks/${pdName}`;
}

function azureKindError(kind: string): TranslationError | undefined {
  return kind !== '' && kind.toLowerCase() !== 'managed'
    ? { error: `kind(${kind}) is not supported in csi migration` }
    : undefined;
}

/**
 * kube's TranslateInTreeInlineVolumeToCSI for the sources whose migration can be on:
 * the CSI volume, a TranslationError (kube's Filter then fails with Error), or undefined
 * for a source that is not translated (never counted).
 */
export function translateInline(disk: InTreeDisk): CSIVolume | TranslationError | undefined {
  switch (disk.type) {
    case 'awsElasticBlockStore': {
      const handle = ebsVolumeID(disk.volumeID);
      return typeof handle === 'string' ? { driver: 'ebs.csi.aws.com', handle } : handle;
    }
    case 'gcePersistentDisk':
      return {
        driver: 'pd.csi.storage.gke.io',
        handle: `projects/${unspecified}/zones/${unspecified}/disks/${disk.pdName}`,
      };
    case 'azureDisk':
      return azureKindError(disk.kind) ?? { driver: 'disk.csi.azure.com', handle: disk.diskURI };
    case 'cinder':
      return { driver: 'cinder.csi.openstack.org', handle: disk.volumeID };
    case 'portworxVolume':
      return { driver: 'pxd.portworx.com', handle: disk.volumeID };
    default:
      return undefined;
  }
}

/**
 * kube's TranslateInTreePVToCSI for a PV's in-tree source; undefined when it cannot be
 * translated (kube then does not count the volume).
 */
export function translatePV(pv: PersistentVolumeInfo, disk: InTreeDisk): CSIVolume | undefined {
  if (disk.type === 'gcePersistentDisk') {
    const handle = gcePVHandle(disk.pdName, pv);
    return handle === undefined ? undefined : { driver: 'pd.csi.storage.gke.io', handle };
  }
  const v = translateInline(disk);
  return v === undefined || 'error' in v ? undefined : v;
}
