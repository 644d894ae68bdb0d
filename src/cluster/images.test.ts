// Table tests for the image parsers: kube's normalizedImageName, node status.images, pod images.
import { describe, expect, it } from 'vitest';
import { nodeObject, podObject } from '../../test/support/objects.ts';
import {
  NO_IMAGES,
  normalizedImageName,
  parseNodeImages,
  parsePodImages,
  parsePodImageVolumes,
} from './images.ts';
import { nodeInfoFromObject, updateNodeObject } from './node-info.ts';
import { podInfoFromObject } from './pod-info.ts';
import type { NodeInfo, PodInfo } from './types.ts';

describe('normalizedImageName', () => {
  const digest = 'sha256:4b8e0d3b5c';
  const cases: [name: string, input: string, want: string][] = [
    ['adds :latest to a bare name', 'root', 'root:latest'],
    ['adds :latest after a registry port', 'gcr.io:5000/root', 'gcr.io:5000/root:latest'],
    ['keeps a tag', 'root:tag', 'root:tag'],
    ['keeps a digest', `root@${digest}`, `root@${digest}`],
    ['keeps a digest under a path', `gcr.io/a/b@${digest}`, `gcr.io/a/b@${digest}`],
    ['adds no docker.io/library/ prefix', 'nginx', 'nginx:latest'],
    [
      'removes no docker.io/library/ prefix',
      'docker.io/library/nginx',
      'docker.io/library/nginx:latest',
    ],
    ['turns an empty image into ":latest", as Go does', '', ':latest'],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => expect(normalizedImageName(input)).toBe(want));
  }
});

describe('parseNodeImages', () => {
  it('maps every name of every entry to its size, as reported (not normalized)', () => {
    const got = parseNodeImages([
      { names: ['gcr.io/a:1', 'gcr.io/a@sha256:1'], sizeBytes: 100 },
      { names: ['nginx'], sizeBytes: 7 },
    ]);
    expect([...got]).toEqual([
      ['gcr.io/a:1', 100],
      ['gcr.io/a@sha256:1', 100],
      ['nginx', 7],
    ]);
  });

  it('keeps the first size of a name listed twice', () => {
    const got = parseNodeImages([
      { names: ['a:1'], sizeBytes: 1 },
      { names: ['a:1'], sizeBytes: 2 },
    ]);
    expect([...got]).toEqual([['a:1', 1]]);
  });

  it('reads an absent sizeBytes as 0, as Go decodes it', () => {
    expect([...parseNodeImages([{ names: ['a:1'] }, { names: ['b:1'], sizeBytes: null }])]).toEqual(
      [
        ['a:1', 0],
        ['b:1', 0],
      ],
    );
  });

  it('skips malformed entries and names, never throwing', () => {
    const got = parseNodeImages([
      null,
      'a:1',
      { names: 'a:1', sizeBytes: 1 },
      { names: ['b:1'], sizeBytes: '5' },
      { names: ['c:1'], sizeBytes: 1.5 },
      { names: ['d:1'], sizeBytes: Number.NaN },
      { names: [3, '', null, 'e:1'], sizeBytes: 9 },
    ]);
    expect([...got]).toEqual([['e:1', 9]]);
  });

  it('shares one empty map for nodes without images', () => {
    for (const v of [undefined, null, [], {}, 'x', [null]])
      expect(parseNodeImages(v)).toBe(NO_IMAGES);
  });
});

describe('parsePodImages', () => {
  it('lists init containers then app containers, one entry each, normalized', () => {
    expect(
      parsePodImages({
        initContainers: [{ image: 'init' }, { image: 'sidecar:2', restartPolicy: 'Always' }],
        containers: [{ image: 'app' }, { image: 'app' }, { image: 'gcr.io/x@sha256:1' }],
        ephemeralContainers: [{ image: 'debug' }],
      }),
    ).toEqual(['init:latest', 'sidecar:2', 'app:latest', 'app:latest', 'gcr.io/x@sha256:1']);
  });

  it('counts a container without a string image as Go\u2019s "" and skips non-objects', () => {
    expect(parsePodImages({ containers: [{}, { image: 3 }, null, 'x', { image: 'a' }] })).toEqual([
      ':latest',
      ':latest',
      'a:latest',
    ]);
    expect(parsePodImages({ containers: 'x', initContainers: {} })).toEqual([]);
  });
});

describe('the parsed objects carry the images', () => {
  function node(images: unknown): NodeInfo {
    const obj = nodeObject('n1') as unknown as { status: Record<string, unknown> };
    obj.status.images = images;
    const n = nodeInfoFromObject(obj);
    if ('rejected' in n) throw new Error(n.rejected);
    return n;
  }

  it('a NodeInfo has its status.images; an update replaces them', () => {
    const first = node([{ names: ['a:1'], sizeBytes: 1 }]);
    expect([...first.images]).toEqual([['a:1', 1]]);
    updateNodeObject(first, node([{ names: ['b:1'], sizeBytes: 2 }]));
    expect([...first.images]).toEqual([['b:1', 2]]);
    expect(node(undefined).images).toBe(NO_IMAGES);
  });

  it('a PodInfo has its container images', () => {
    const obj = podObject('p', {
      containers: [{ name: 'c', image: 'app' }],
      initContainers: [{ name: 'i', image: 'init:3' }],
    });
    const p = podInfoFromObject(obj) as PodInfo;
    expect(p.images).toEqual(['init:3', 'app:latest']);
  });
});

describe('parsePodImageVolumes', () => {
  it('lists each image volume\u2019s reference, normalized, in volume order, duplicates kept', () => {
    const volumes = [
      { name: 'a', image: { reference: 'models/llm:v2' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'c' } },
      { name: 'b', image: { reference: 'weights' } },
      { name: 'c', image: { reference: 'models/llm:v2' } },
    ];
    expect(parsePodImageVolumes({ volumes })).toEqual([
      'models/llm:v2',
      'weights:latest',
      'models/llm:v2',
    ]);
  });

  it('a reference that is missing or not a string is Go\u2019s "" (":latest")', () => {
    const volumes = [
      { name: 'a', image: {} },
      { name: 'b', image: { reference: 7 } },
    ];
    expect(parsePodImageVolumes({ volumes })).toEqual([':latest', ':latest']);
  });

  it('skips what kube could not decode, and is empty without image volumes', () => {
    expect(parsePodImageVolumes({ volumes: [null, 'x', { name: 'a', image: 'y' }] })).toEqual([]);
    expect(parsePodImageVolumes({ volumes: 'x' })).toEqual([]);
    expect(parsePodImageVolumes({})).toEqual([]);
  });
});
