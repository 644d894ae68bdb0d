// Parser tests for PodInfo's volumes: each source read, malformed input never throws, DRA claims refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { podInfoFromObject } from './pod-info.ts';
import { claimNameOf, noVolumes, parsePodVolumes } from './pod-volumes.ts';
import { unsupportedConstraint } from './unsupported.ts';

describe('parsePodVolumes', () => {
  it('reads the sources the volume plugins use, in spec order, and drops the others', () => {
    const spec = {
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: 'data-0', readOnly: true } },
        { name: 'cache', emptyDir: {} },
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { spec: {} } } },
        { name: 'pd', gcePersistentDisk: { pdName: 'disk-1', partition: 2, readOnly: true } },
        { name: 'ebs', awsElasticBlockStore: { volumeID: 'vol-1' } },
        { name: 'ceph', rbd: { monitors: ['m1', 'm2'], pool: 'rbd', image: 'img' } },
        { name: 'lun', iscsi: { targetPortal: 'p', iqn: 'iqn.x', lun: 0, readOnly: true } },
        { name: 'az', azureDisk: { diskName: 'd', diskURI: 'uri', kind: 'Managed' } },
        { name: 'os', cinder: { volumeID: 'c-1' } },
        { name: 'px', portworxVolume: { volumeID: 'px-1' } },
        { name: 'af', azureFile: { secretName: 's', shareName: 'x' } },
        { name: 'vs', vsphereVolume: { volumePath: '/p' } },
        { name: 'secret', secret: { secretName: 's' } },
      ],
    };
    expect(parsePodVolumes(spec)).toEqual([
      { name: 'data', type: 'persistentVolumeClaim', claimName: 'data-0' },
      { name: 'scratch', type: 'ephemeral' },
      { name: 'pd', type: 'gcePersistentDisk', pdName: 'disk-1', partition: 2, readOnly: true },
      { name: 'ebs', type: 'awsElasticBlockStore', volumeID: 'vol-1', readOnly: false },
      {
        name: 'ceph',
        type: 'rbd',
        monitors: ['m1', 'm2'],
        pool: 'rbd',
        image: 'img',
        readOnly: false,
      },
      { name: 'lun', type: 'iscsi', iqn: 'iqn.x', readOnly: true },
      { name: 'az', type: 'azureDisk', diskURI: 'uri', kind: 'Managed' },
      { name: 'os', type: 'cinder', volumeID: 'c-1' },
      { name: 'px', type: 'portworxVolume', volumeID: 'px-1' },
      { name: 'af', type: 'azureFile' },
      { name: 'vs', type: 'vsphereVolume' },
    ]);
  });

  it('shares one empty list for pods without such volumes', () => {
    expect(parsePodVolumes({})).toBe(noVolumes);
    expect(parsePodVolumes({ volumes: [{ name: 'x', emptyDir: {} }] })).toBe(noVolumes);
  });

  it('reads malformed fields as their zero values and skips malformed entries', () => {
    const spec = {
      volumes: [
        null,
        'data',
        { name: 7, persistentVolumeClaim: { claimName: 3 } },
        { name: 'rbd', rbd: { monitors: 'm1', pool: 1, readOnly: 'yes' } },
        { name: 'pd', gcePersistentDisk: { pdName: 'd', partition: 1.5 } },
        { name: 'bad', persistentVolumeClaim: [] },
      ],
    };
    expect(parsePodVolumes(spec)).toEqual([
      { name: '', type: 'persistentVolumeClaim', claimName: '' },
      { name: 'rbd', type: 'rbd', monitors: [], pool: '', image: '', readOnly: false },
      { name: 'pd', type: 'gcePersistentDisk', pdName: 'd', partition: 0, readOnly: false },
    ]);
  });

  it('never throws on arbitrary input', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (volumes, spec) => {
        parsePodVolumes({ volumes: [volumes, { name: 'v', ...(spec as object) }] });
        parsePodVolumes(spec);
        parsePodVolumes({ volumes });
      }),
      { numRuns: 300 },
    );
  });

  it('names the claim of a PVC volume and of a generic ephemeral volume', () => {
    expect(claimNameOf('web-0', { name: 'd', type: 'persistentVolumeClaim', claimName: 'x' })).toBe(
      'x',
    );
    expect(claimNameOf('web-0', { name: 'scratch', type: 'ephemeral' })).toBe('web-0-scratch');
    expect(
      claimNameOf('web-0', {
        name: 'e',
        type: 'awsElasticBlockStore',
        volumeID: 'v',
        readOnly: false,
      }),
    ).toBeUndefined();
  });

  it('is a PodInfo field', () => {
    const pod = podInfoFromObject({
      metadata: { name: 'p', uid: 'u' },
      spec: { volumes: [{ name: 'd', persistentVolumeClaim: { claimName: 'c' } }] },
    });
    expect('rejected' in pod ? undefined : pod.volumes).toEqual([
      { name: 'd', type: 'persistentVolumeClaim', claimName: 'c' },
    ]);
  });
});

describe('DRA resource claims', () => {
  it('refuses a pod with spec.resourceClaims, naming the first claim', () => {
    const spec = {
      resourceClaims: [{ name: 'gpu', resourceClaimName: 'gpu-claim' }, { name: 'b' }],
    };
    expect(unsupportedConstraint(spec)).toBe(
      'berth does not support dynamic resource allocation yet: spec.resourceClaims[0] (gpu)',
    );
    const pod = podInfoFromObject({ metadata: { name: 'p' }, spec });
    expect('rejected' in pod ? undefined : pod.unsupported).toBe(
      'berth does not support dynamic resource allocation yet: spec.resourceClaims[0] (gpu)',
    );
  });

  it('leaves pods without resource claims alone, and never throws', () => {
    expect(unsupportedConstraint({ resourceClaims: [] })).toBeUndefined();
    expect(unsupportedConstraint({})).toBeUndefined();
    expect(unsupportedConstraint({ resourceClaims: [null] })).toBe(
      'berth does not support dynamic resource allocation yet: spec.resourceClaims[0] ()',
    );
    fc.assert(
      fc.property(fc.anything(), (v) => {
        unsupportedConstraint(v);
        unsupportedConstraint({ resourceClaims: v });
      }),
      { numRuns: 200 },
    );
  });
});
