// Tests for in-tree → CSI translation (csi-translation-lib's handles) and when migration counts as on.
import { describe, expect, it } from 'vitest';
import type { CSINodeInfo, PersistentVolumeInfo } from '../../cluster/volume-objects.ts';
import { csiMigrationOn, translateInline, translatePV } from './csi-migration.ts';

const ebs = (volumeID: string) =>
  ({ type: 'awsElasticBlockStore', volumeID, readOnly: false }) as const;
const gce = { type: 'gcePersistentDisk', pdName: 'disk', partition: 0, readOnly: false } as const;
const pv = (labels: [string, string][]): PersistentVolumeInfo => ({
  name: 'pv',
  storageClassName: '',
  topologyLabels: labels,
  phase: '',
});

describe('translateInline', () => {
  const cases: { name: string; id: string; want: unknown }[] = [
    {
      name: 'a bare EBS volume id',
      id: 'vol-123',
      want: { driver: 'ebs.csi.aws.com', handle: 'vol-123' },
    },
    {
      name: 'an aws:// URL with a zone',
      id: 'aws://us-east-1a/vol-123',
      want: { driver: 'ebs.csi.aws.com', handle: 'vol-123' },
    },
    {
      name: 'an aws:// URL without a zone',
      id: 'aws:///vol-9',
      want: { driver: 'ebs.csi.aws.com', handle: 'vol-9' },
    },
    {
      name: 'an aws:// URL that is not a volume',
      id: 'aws://us-east-1a/snap-1',
      want: { error: 'Invalid format for AWS volume (aws://us-east-1a/snap-1)' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(translateInline(ebs(c.id))).toEqual(c.want);
    });
  }

  it('gives an inline GCE PD an unspecified project and zone', () => {
    expect(translateInline(gce)).toEqual({
      driver: 'pd.csi.storage.gke.io',
      handle: 'projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk',
    });
  });

  it('translates a managed Azure disk and refuses other kinds', () => {
    expect(translateInline({ type: 'azureDisk', diskURI: 'u', kind: 'managed' })).toEqual({
      driver: 'disk.csi.azure.com',
      handle: 'u',
    });
    expect(translateInline({ type: 'azureDisk', diskURI: 'u', kind: 'Dedicated' })).toEqual({
      error: 'kind(Dedicated) is not supported in csi migration',
    });
  });

  it('does not translate sources whose migration is off', () => {
    expect(translateInline({ type: 'azureFile' })).toBeUndefined();
    expect(translateInline({ type: 'iscsi', iqn: 'x', readOnly: false })).toBeUndefined();
  });
});

describe('translatePV', () => {
  it('places a GCE PD PV in its zone, or its region when it spans zones', () => {
    const zone = 'topology.kubernetes.io/zone';
    const beta = 'failure-domain.beta.kubernetes.io/zone';
    expect(translatePV(pv([[zone, 'us-central1-a']]), gce)?.handle).toBe(
      'projects/UNSPECIFIED/zones/us-central1-a/disks/disk',
    );
    expect(translatePV(pv([[beta, 'us-central1-a__us-central1-b']]), gce)?.handle).toBe(
      'projects/UNSPECIFIED/regions/us-central1/disks/disk',
    );
    expect(translatePV(pv([[beta, 'us-central1-a__europe-west1-b']]), gce)).toBeUndefined();
    expect(translatePV(pv([]), gce)?.handle).toBe(
      'projects/UNSPECIFIED/zones/UNSPECIFIED/disks/disk',
    );
  });

  it('does not count a PV whose source cannot be translated', () => {
    expect(translatePV(pv([]), ebs('aws://zone/not-a-volume'))).toBeUndefined();
  });
});

describe('csiMigrationOn', () => {
  const node = (migratedPlugins: string[]): CSINodeInfo => ({
    name: 'n',
    drivers: [],
    migratedPlugins,
  });
  it('is on for EBS, GCE PD, Azure Disk and Cinder wherever a CSINode exists', () => {
    for (const p of [
      'kubernetes.io/aws-ebs',
      'kubernetes.io/gce-pd',
      'kubernetes.io/azure-disk',
      'kubernetes.io/cinder',
    ]) {
      expect(csiMigrationOn(node([]), p)).toBe(true);
      expect(csiMigrationOn(undefined, p)).toBe(false);
    }
  });

  it('is on for Portworx only where the CSINode lists it, and never for the others', () => {
    expect(csiMigrationOn(node([]), 'kubernetes.io/portworx-volume')).toBe(false);
    expect(
      csiMigrationOn(node(['kubernetes.io/portworx-volume']), 'kubernetes.io/portworx-volume'),
    ).toBe(true);
    expect(csiMigrationOn(node(['kubernetes.io/azure-file']), 'kubernetes.io/azure-file')).toBe(
      false,
    );
    expect(csiMigrationOn(node([]), '')).toBe(false);
  });
});
