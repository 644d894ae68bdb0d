// The simulated API server's admission agrees with kube-apiserver 1.34 and refuses what it refuses.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { PodObject } from '../../model/objects.ts';
import { type AdmissionInput, admit, manifestInput } from './admission.ts';
import { parseManifests } from './manifests.ts';
import { generateWorkload } from './workload.ts';

const fixtures = new URL('../../../test/fixtures/', import.meta.url);
const demo = new URL('../../cli/demo-cluster.yaml', import.meta.url);

function fromText(text: string, source = 'c.yaml'): AdmissionInput {
  return manifestInput(parseManifests(text, source));
}

/** The fields the captured API server output holds, read the same way from both sides. */
function project(pod: PodObject) {
  const containers = (list: unknown) =>
    ((list ?? []) as { name: string; resources?: unknown }[]).map((c) => ({
      name: c.name,
      resources: c.resources ?? {},
    }));
  const s = pod.spec;
  return {
    namespace: pod.metadata.namespace,
    name: pod.metadata.name,
    spec: {
      schedulerName: s.schedulerName,
      priority: s.priority,
      priorityClassName: s.priorityClassName ?? null,
      preemptionPolicy: s.preemptionPolicy,
      tolerations: s.tolerations ?? null,
      containers: containers(s.containers),
      initContainers: containers(s.initContainers),
    },
  };
}

const pod = (name: string, spec: string) =>
  `---\nkind: Pod\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
const oneContainer = '[{name: c}]';

describe('admission', () => {
  it('stores the fixture exactly as kube-apiserver 1.34 did', () => {
    const text = readFileSync(new URL('admission.yaml', fixtures), 'utf8');
    const expected = JSON.parse(
      readFileSync(new URL('admission-apiserver.json', fixtures), 'utf8'),
    ) as { pods: unknown[] };
    const { pods } = admit([fromText(text, 'admission.yaml')]);
    const got = pods.map(project).sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(got).toEqual(expected.pods);
  });

  it('admits the demo cluster: priority from its class, default-scheduler when none is named', () => {
    const { pods } = admit([fromText(readFileSync(demo, 'utf8'), 'demo-cluster.yaml')]);
    const byName = new Map(pods.map((p) => [p.metadata.name, p]));
    expect(byName.get('trainer')?.spec).toMatchObject({
      priority: 1000,
      priorityClassName: 'training',
    });
    expect(byName.get('not-mine')?.spec.schedulerName).toBe('default-scheduler');
    expect(byName.get('web-1')?.spec.priority).toBe(0);
  });

  it('leaves a pod read back from an API server (it has a resourceVersion) as it is', () => {
    const stored =
      'kind: Pod\nmetadata: {name: p, namespace: ns, resourceVersion: "42"}\n' +
      'spec: {priorityClassName: from-elsewhere, priority: 7, containers: [{name: c, resources: {limits: {cpu: "1"}}}]}\n';
    const [p] = admit([fromText(stored)]).pods;
    expect(p?.spec).toEqual({
      priorityClassName: 'from-elsewhere',
      priority: 7,
      containers: [{ name: 'c', resources: { limits: { cpu: '1' } } }],
    });
  });

  it('does not copy a limit that does not parse into requests, so the core names the limit', () => {
    const [p] = admit([
      fromText(
        pod('p', '{containers: [{name: c, resources: {limits: {cpu: lots, memory: 1Gi}}}]}'),
      ),
    ]).pods;
    expect(p?.spec.containers?.[0]?.resources?.requests).toEqual({ memory: '1Gi' });
  });

  it.each([
    ['an empty list', '{containers: []}'],
    ['null', '{containers: null}'],
    ['no containers', '{nodeSelector: {a: b}}'],
    ['a null spec', 'null'],
  ])('refuses a pod whose containers are %s, naming the field', (_name, spec) => {
    expect(() =>
      admit([fromText(`${pod('ok', `{containers: ${oneContainer}}`)}${pod('p', spec)}`)]),
    ).toThrow('c.yaml: document 2: Pod default/p is invalid: spec.containers: Required value');
  });

  it('refuses a second pod of one namespace/name, naming both places, across files', () => {
    const a = fromText(pod('p', `{containers: ${oneContainer}}`), 'a.yaml');
    const b = fromText(
      `kind: List\nitems: [{kind: Pod, metadata: {name: p, namespace: default}, spec: {containers: ${oneContainer}}}]\n`,
      'b.yaml',
    );
    expect(() => admit([a, b])).toThrow(
      'b.yaml: document 1 items[0]: Pod default/p is defined twice (first at a.yaml: document 1); names must be unique',
    );
  });

  it('refuses a node of a name the generated workload also uses', () => {
    const file = fromText('kind: Node\nmetadata: {name: node-1}\n', 'nodes.yaml');
    const generated = generateWorkload(3, 0, 1);
    expect(() =>
      admit([
        file,
        { ...generated, originOf: (kind, i) => `the generated workload: ${kind} ${i}` },
      ]),
    ).toThrow(
      'the generated workload: Node 1: Node node-1 is defined twice (first at nodes.yaml: document 1)',
    );
  });

  it.each([
    [
      'an unknown class',
      pod('p', `{priorityClassName: nope, containers: ${oneContainer}}`),
      'c.yaml: document 1: Pod default/p is forbidden: no PriorityClass with name nope was found',
    ],
    [
      'a priority without a class',
      pod('p', `{priority: 1000, containers: ${oneContainer}}`),
      'Pod default/p is forbidden: the integer value of priority (1000) must not be provided in pod spec; priority admission controller computed 0 from the given PriorityClass name',
    ],
    [
      "a preemptionPolicy other than its class's",
      `kind: PriorityClass\nmetadata: {name: nv}\nvalue: 3\npreemptionPolicy: Never\n${pod('p', `{priorityClassName: nv, preemptionPolicy: PreemptLowerPriority, containers: ${oneContainer}}`)}`,
      'the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never',
    ],
    [
      'a class with a reserved name',
      'kind: PriorityClass\nmetadata: {name: system-mine}\nvalue: 1\n',
      "PriorityClass system-mine is invalid: metadata.name: Forbidden: priority class names with 'system-' prefix are reserved",
    ],
    [
      'a class above a billion',
      'kind: PriorityClass\nmetadata: {name: top}\nvalue: 1000000001\n',
      'PriorityClass top is invalid: value: Forbidden: maximum allowed value of a user defined priority is 1000000000',
    ],
    [
      'a second global default',
      'kind: PriorityClass\nmetadata: {name: a}\nvalue: 1\nglobalDefault: true\n---\nkind: PriorityClass\nmetadata: {name: b}\nvalue: 2\nglobalDefault: true\n',
      'c.yaml: document 2: PriorityClass b is forbidden: PriorityClass a (at c.yaml: document 1) is already marked as default. Only one default can exist',
    ],
    [
      'a class defined twice',
      'kind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n---\nkind: PriorityClass\nmetadata: {name: a}\nvalue: 1\n',
      'c.yaml: document 2: PriorityClass a is defined twice (first at c.yaml: document 1)',
    ],
  ])('refuses %s as the API server does', (_name, text, message) => {
    expect(() => admit([fromText(text)])).toThrow(message);
  });

  it('accepts the built-in classes listed again, as a dump of a cluster lists them', () => {
    const text =
      'kind: PriorityClass\nmetadata: {name: system-node-critical, resourceVersion: "9"}\nvalue: 2000001000\n' +
      pod('p', `{priorityClassName: system-node-critical, containers: ${oneContainer}}`);
    expect(admit([fromText(text)]).pods[0]?.spec.priority).toBe(2_000_001_000);
  });
});
