// Reading manifests: kinds kept, empty and hostile input refused naming the file, huge input read.
import { describe, expect, it } from 'vitest';
import { ManifestError, maxManifestDepth, parseManifests } from './manifests.ts';

/** A billion-laughs document: nine levels of nine aliases each. */
function aliasBomb(): string {
  const lines = [
    'kind: ConfigMap',
    'metadata: {name: lol}',
    'data:',
    '  a: &a ["lol","lol","lol"]',
  ];
  let previous = 'a';
  for (const name of 'bcdefghi') {
    lines.push(`  ${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    previous = name;
  }
  return `${lines.join('\n')}\n`;
}

function refusal(text: string): string {
  try {
    parseManifests(text, 'in.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ManifestError);
    return (error as Error).message;
  }
  throw new Error('parseManifests accepted the input');
}

describe('parseManifests', () => {
  it('keeps Nodes, Pods and PriorityClasses with where each was found, and notes other kinds', () => {
    const m = parseManifests(
      'kind: Node\nmetadata: {name: n}\n---\nkind: ConfigMap\nmetadata: {name: x}\n---\n' +
        'kind: List\nitems:\n- {kind: Pod, metadata: {name: p}, spec: {containers: [{name: c}]}}\n' +
        '- {kind: PriorityClass, metadata: {name: hi}, value: 10}\n',
      'in.yaml',
    );
    expect(m.nodes.map((n) => n.metadata.name)).toEqual(['n']);
    expect(m.origins).toEqual({
      Node: ['in.yaml: document 1'],
      Pod: ['in.yaml: document 3 items[0]'],
      PriorityClass: ['in.yaml: document 3 items[1]'],
    });
    expect(m.priorityClasses[0]).toMatchObject({ value: 10 });
    expect(m.skipped).toEqual([
      'in.yaml: document 2: ConfigMap ignored (berth simulates Nodes, Pods, PriorityClasses, ' +
        'Namespace, Service, ReplicaSet, StatefulSet, ReplicationController, ' +
        'PersistentVolumeClaim, PersistentVolume, StorageClass, CSINode, PodDisruptionBudget, ' +
        'PodGroup, ResourceClaim, DeviceClass, ResourceSlice, DeviceTaintRule, ' +
        'ResourceClaimTemplate)',
    ]);
  });

  it("keeps scheduler-plugins' PodGroups and skips another project's PodGroup kind", () => {
    const m = parseManifests(
      'apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n' +
        'metadata: {name: train, namespace: ml}\nspec: {minMember: 3}\n---\n' +
        'apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\n' +
        'metadata: {name: job, namespace: ml}\nspec: {minMember: 2}\n',
      'in.yaml',
    );
    expect(m.objects).toEqual([
      {
        kind: 'PodGroup',
        object: {
          apiVersion: 'scheduling.x-k8s.io/v1alpha1',
          kind: 'PodGroup',
          metadata: { name: 'train', namespace: 'ml' },
          spec: { minMember: 3 },
        },
        origin: 'in.yaml: document 1',
      },
    ]);
    expect(m.skipped).toEqual([
      'in.yaml: document 2: PodGroup of scheduling.volcano.sh/v1beta1 ignored ' +
        '(berth reads scheduling.x-k8s.io/v1alpha1 and scheduling.k8s.io/v1beta1 PodGroups)',
    ]);
  });

  it("keeps Kubernetes' own PodGroups (scheduling.k8s.io/v1beta1) apart from scheduler-plugins' ones", () => {
    const m = parseManifests(
      'apiVersion: scheduling.k8s.io/v1beta1\nkind: PodGroup\n' +
        'metadata: {name: train, namespace: ml}\nspec: {schedulingPolicy: {gang: {minCount: 3}}}\n---\n' +
        'kind: CorePodGroup\nmetadata: {name: x}\n',
      'in.yaml',
    );
    expect(m.objects).toEqual([
      {
        kind: 'CorePodGroup',
        object: {
          apiVersion: 'scheduling.k8s.io/v1beta1',
          kind: 'PodGroup',
          metadata: { name: 'train', namespace: 'ml' },
          spec: { schedulingPolicy: { gang: { minCount: 3 } } },
        },
        origin: 'in.yaml: document 1',
      },
    ]);
    expect(m.skipped).toEqual([
      'in.yaml: document 2: CorePodGroup ignored (write kind PodGroup, apiVersion scheduling.k8s.io/v1beta1)',
    ]);
  });

  it('keeps the watched object kinds (namespaces, workloads, volumes) with their origin', () => {
    const m = parseManifests(
      'kind: Namespace\nmetadata: {name: team, labels: {env: prod}}\n---\n' +
        'kind: Service\nmetadata: {name: web, namespace: team}\nspec: {selector: {app: web}}\n',
      'in.yaml',
    );
    expect(m.objects).toEqual([
      {
        kind: 'Namespace',
        object: { kind: 'Namespace', metadata: { name: 'team', labels: { env: 'prod' } } },
        origin: 'in.yaml: document 1',
      },
      {
        kind: 'Service',
        object: {
          kind: 'Service',
          metadata: { name: 'web', namespace: 'team' },
          spec: { selector: { app: 'web' } },
        },
        origin: 'in.yaml: document 2',
      },
    ]);
  });

  it('keeps the DRA kinds and ResourceClaimTemplates (the sim reads those) in file order', () => {
    const dra = [
      ['DeviceClass', ''],
      ['ResourceSlice', ''],
      ['DeviceTaintRule', ''],
      ['ResourceClaim', ', namespace: ml'],
      ['ResourceClaimTemplate', ', namespace: ml'],
    ];
    const text = dra
      .map(
        ([kind, ns]) => `apiVersion: resource.k8s.io/v1\nkind: ${kind}\nmetadata: {name: x${ns}}\n`,
      )
      .join('---\n');
    const m = parseManifests(text, 'in.yaml');
    expect(m.skipped).toEqual([]);
    expect(m.objects.map((o) => `${o.kind} ${o.origin}`)).toEqual(
      dra.map(([kind], i) => `${kind} in.yaml: document ${i + 1}`),
    );
  });

  it('refuses a watched object without a name, naming the document', () => {
    expect(refusal('kind: Service\nmetadata: {}\n')).toBe(
      'in.yaml: document 1: Service has no metadata.name',
    );
  });

  it.each([
    ['an empty file', ''],
    ['only comments and separators', '# nothing\n---\n---\n'],
    ['an empty List', '{"kind": "List", "items": []}'],
  ])('refuses %s, naming the file', (_name, text) => {
    expect(refusal(text)).toBe('in.yaml: no Kubernetes objects in the file');
  });

  it('refuses a file of only other kinds, naming the file', () => {
    expect(refusal('kind: ConfigMap\nmetadata: {name: x}\n')).toBe(
      'in.yaml: no Nodes, Pods or PriorityClasses in the file (1 other object(s) skipped)',
    );
  });

  it('refuses a YAML alias bomb in one line naming the file and document', () => {
    const message = refusal(`kind: Node\nmetadata: {name: n}\n---\n${aliasBomb()}`);
    expect(message).toBe(
      'in.yaml: document 2: too many YAML alias expansions (more than 100; an alias bomb?)',
    );
  });

  it.each([
    ['a JSON array', (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`],
    ['a JSON object', (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`],
    [
      'a pod field',
      (n: number) =>
        `{"kind":"Pod","metadata":{"name":"p"},"spec":{"nodeSelector":${'{"a":'.repeat(n)}1${'}'.repeat(n)}}}`,
    ],
    ['YAML flow sequences', (n: number) => `a: ${'['.repeat(n)}${']'.repeat(n)}\n`],
  ])('refuses %s nested 200,000 deep in one line naming the file', (_name, make) => {
    const message = refusal(make(200_000));
    expect(message).toMatch(/^in\.yaml: (document 1: )?(invalid YAML: )?nesting too deep/);
    expect(message).toContain(`more than ${maxManifestDepth} levels`);
    expect(message).not.toContain('\n');
  });

  it('reads a List of 130,000 pods', () => {
    const items = Array.from({ length: 130_000 }, (_, i) => ({
      kind: 'Pod',
      metadata: { name: `p-${i}` },
      spec: { containers: [{ name: 'c' }] },
    }));
    const m = parseManifests(JSON.stringify({ kind: 'List', items }), 'big.json');
    expect(m.pods).toHaveLength(130_000);
    expect(m.origins.Pod[129_999]).toBe('big.json: document 1 items[129999]');
  });
});
