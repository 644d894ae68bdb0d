// Pins the protobuf decoder to the JSON path: a Pod or Node decoded from protobuf equals trimPod/trimNode of its JSON form.
import protobuf from 'protobufjs/minimal.js';
import { describe, expect, it } from 'vitest';
import { trimNode, trimPod } from '../../trim.ts';
import { ProtoFormatError } from './decode.ts';
import { decodeNodeItem, decodePodItem, k8sDecoder } from './items.ts';

/** One protobuf field: a string, a nested message's bytes, an int64 or a bool. */
type Value = string | Uint8Array | number | boolean;

/** Encodes fields in the order given (repeated fields: the same number again). */
function msg(...fields: [number, Value][]): Uint8Array {
  const w = protobuf.Writer.create();
  for (const [n, v] of fields) {
    if (typeof v === 'string') w.uint32((n << 3) | 2).string(v);
    else if (v instanceof Uint8Array) w.uint32((n << 3) | 2).bytes(v);
    else if (typeof v === 'boolean') w.uint32(n << 3).bool(v);
    else w.uint32(n << 3).int64(v);
  }
  return w.finish();
}

/** A map<string, V> entry. */
const entry = (key: string, value: Value) => msg([1, key], [2, value]);
const quantity = (text: string) => msg([1, text]);
const time = (seconds: number) => msg([1, seconds], [2, 0]);

// 2025-11-24T19:36:58Z
const created = 1764013018;

/** A Pod in protobuf (core/v1 field numbers), with fields trimPod drops and zero values. */
const podBytes = msg(
  [
    1,
    msg(
      [1, 'web-0'],
      [3, 'shop'],
      [5, 'uid-1'],
      [6, '42'],
      [7, 0], // generation 0: JSON leaves it out
      [8, time(created)],
      [11, entry('app', 'web')],
      [11, entry('tier', 'front')],
      [12, entry('note', 'dropped')],
      [17, msg([1, 'kubectl'], [2, 'Update'])], // managedFields
      [999, 'an unknown field'],
    ),
  ],
  [
    2,
    msg(
      [1, msg([1, 'data'], [2, msg([10, msg([1, 'claim-a'], [2, false])])])], // PVC, readOnly false
      [1, msg([1, 'tmp'], [2, msg([2, msg([1, 'Memory'])])])], // emptyDir: dropped
      [
        2,
        msg(
          [1, 'app'],
          [2, 'shop:1.0'],
          [6, msg([3, 8080], [4, 'TCP'], [2, 0])], // containerPort 8080, hostPort 0
          [7, msg([1, 'LOG'], [2, 'debug'])], // env: dropped
          [8, msg([2, entry('cpu', quantity('250m'))], [2, entry('memory', quantity('64Mi'))])],
        ),
      ],
      [3, 'Always'], // restartPolicy: dropped
      [10, ''], // nodeName "": left out
      [11, false], // hostNetwork false: left out
      [19, 'berth'],
      [22, msg([1, 'node.kubernetes.io/not-ready'], [2, 'Exists'], [4, 'NoExecute'], [5, 300])],
      [25, 0], // priority 0 (a pointer): kept
    ),
  ],
  [
    3,
    msg(
      [1, 'Pending'],
      [2, msg([1, 'Ready'], [2, 'False'], [4, time(created)])],
      [2, msg([1, 'DisruptionTarget'], [2, 'True'], [5, 'PreemptionByScheduler'], [6, 'gone'])],
      [7, time(created + 5)],
    ),
  ],
);

/** The same Pod as the API server writes it in JSON. */
const podJson = {
  metadata: {
    name: 'web-0',
    namespace: 'shop',
    uid: 'uid-1',
    resourceVersion: '42',
    creationTimestamp: '2025-11-24T19:36:58Z',
    labels: { app: 'web', tier: 'front' },
    annotations: { note: 'dropped' },
    managedFields: [{ manager: 'kubectl', operation: 'Update' }],
  },
  spec: {
    volumes: [
      { name: 'data', persistentVolumeClaim: { claimName: 'claim-a' } },
      { name: 'tmp', emptyDir: { medium: 'Memory' } },
    ],
    containers: [
      {
        name: 'app',
        image: 'shop:1.0',
        ports: [{ containerPort: 8080, protocol: 'TCP' }],
        env: [{ name: 'LOG', value: 'debug' }],
        resources: { requests: { cpu: '250m', memory: '64Mi' } },
      },
    ],
    restartPolicy: 'Always',
    schedulerName: 'berth',
    tolerations: [
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
    ],
    priority: 0,
  },
  status: {
    phase: 'Pending',
    conditions: [
      { type: 'Ready', status: 'False', lastTransitionTime: '2025-11-24T19:36:58Z' },
      {
        type: 'DisruptionTarget',
        status: 'True',
        reason: 'PreemptionByScheduler',
        message: 'gone',
      },
    ],
    startTime: '2025-11-24T19:37:03Z',
  },
};

describe('decodePodItem', () => {
  it('gives what trimPod keeps of the JSON form, zero values left out as JSON leaves them', () => {
    const decoded = decodePodItem(podBytes);
    expect(decoded).toEqual(trimPod(podJson));
    // Spelled out, so a change to trimPod alone cannot make both sides agree on nothing.
    expect(decoded).toEqual({
      metadata: {
        name: 'web-0',
        namespace: 'shop',
        uid: 'uid-1',
        resourceVersion: '42',
        creationTimestamp: '2025-11-24T19:36:58Z',
        labels: { app: 'web', tier: 'front' },
      },
      spec: {
        volumes: [
          { name: 'data', persistentVolumeClaim: { claimName: 'claim-a' } },
          { name: 'tmp' },
        ],
        containers: [
          {
            name: 'app',
            image: 'shop:1.0',
            ports: [{ containerPort: 8080, protocol: 'TCP' }],
            resources: { requests: { cpu: '250m', memory: '64Mi' } },
          },
        ],
        schedulerName: 'berth',
        tolerations: podJson.spec.tolerations,
        priority: 0,
      },
      status: {
        phase: 'Pending',
        conditions: [{ type: 'DisruptionTarget', status: 'True', reason: 'PreemptionByScheduler' }],
        startTime: '2025-11-24T19:37:03Z',
      },
    });
  });

  it('throws a ProtoFormatError on bytes cut short or of the wrong wire type', () => {
    expect(() => decodePodItem(podBytes.subarray(0, podBytes.length - 3))).toThrow(
      ProtoFormatError,
    );
    // metadata.name sent as a varint.
    expect(() => decodePodItem(msg([1, msg([1, 7])]))).toThrow(/wire type 0 for a string/);
    // A nested length running past its parent's end.
    const bad = msg([1, msg([1, 'p'])]);
    bad[1] = (bad[1] as number) + 1;
    expect(() => decodePodItem(bad)).toThrow(ProtoFormatError);
  });
});

describe('decodeNodeItem', () => {
  it('gives what trimNode keeps: taints with their time, resource maps, images', () => {
    const bytes = msg(
      [1, msg([1, 'n1'], [5, 'uid-n'], [6, '7'], [11, entry('zone', 'a')])],
      [
        2,
        msg(
          [3, 'provider://n1'], // providerID: dropped
          [4, true], // unschedulable
          [5, msg([1, 'gpu'], [3, 'NoSchedule'], [4, time(created)])],
          [5, msg([1, 'k'], [2, ''], [3, 'PreferNoSchedule'])],
        ),
      ],
      [
        3,
        msg(
          [1, entry('cpu', quantity('4'))],
          [2, entry('cpu', quantity('3900m'))],
          [2, entry('pods', quantity('110'))],
          [8, msg([1, 'img:1'], [1, 'img@sha256:0'], [2, 123456789])],
          [4, msg([1, 'Ready'], [2, 'True'])], // conditions: dropped
        ),
      ],
    );
    const json = {
      metadata: { name: 'n1', uid: 'uid-n', resourceVersion: '7', labels: { zone: 'a' } },
      spec: {
        providerID: 'provider://n1',
        unschedulable: true,
        taints: [
          { key: 'gpu', effect: 'NoSchedule', timeAdded: '2025-11-24T19:36:58Z' },
          { key: 'k', effect: 'PreferNoSchedule' },
        ],
      },
      status: {
        capacity: { cpu: '4' },
        allocatable: { cpu: '3900m', pods: '110' },
        images: [{ names: ['img:1', 'img@sha256:0'], sizeBytes: 123456789 }],
        conditions: [{ type: 'Ready', status: 'True' }],
      },
    };
    expect(decodeNodeItem(bytes)).toEqual(trimNode(json));
    expect(decodeNodeItem(bytes)).toHaveProperty('spec.taints.1', {
      key: 'k',
      effect: 'PreferNoSchedule',
    });
  });
});

describe('decodePodItem: what NodeDeclaredFeatures reads', () => {
  it('keeps restart rule actions, hostUsers and bind mounts as trimPod does', () => {
    const mount = (name: string, option?: string) =>
      option === undefined ? msg([1, name]) : msg([1, name], [8, option]);
    const container = msg(
      [1, 'a'],
      [9, mount('v', 'noexec')],
      [9, mount('w')],
      [25, msg([1, 'RestartAllContainers'])],
    );
    const ephemeral = msg([1, msg([1, 'dbg'], [9, mount('v', 'nosuid')])]);
    const bytes = msg(
      [1, msg([1, 'p'])],
      [2, msg([2, container], [11, true], [34, ephemeral], [37, false])],
    );
    const json = {
      metadata: { name: 'p' },
      spec: {
        containers: [
          {
            name: 'a',
            volumeMounts: [{ name: 'v', bindMountOptions: ['noexec'] }, { name: 'w' }],
            restartPolicyRules: [{ action: 'RestartAllContainers' }],
          },
        ],
        hostNetwork: true,
        ephemeralContainers: [
          { name: 'dbg', volumeMounts: [{ name: 'v', bindMountOptions: ['nosuid'] }] },
        ],
        hostUsers: false,
      },
    };
    expect(decodePodItem(bytes)).toEqual(trimPod(json));
    expect(decodePodItem(bytes)).toHaveProperty('spec.hostUsers', false);
    expect(decodePodItem(bytes)).toHaveProperty('spec.ephemeralContainers.0.volumeMounts.0', {
      bindMountOptions: ['nosuid'],
    });
  });
});

describe('decodeNodeItem: kube 1.35+ fields', () => {
  it('keeps status.declaredFeatures (field 14), as trimNode does', () => {
    const [restart, userns] = [
      'RestartAllContainersOnContainerExits',
      'UserNamespacesHostNetworkSupport',
    ];
    const features = [restart, userns];
    const bytes = msg([1, msg([1, 'n1'])], [3, msg([14, restart], [14, userns])]);
    const json = { metadata: { name: 'n1' }, status: { declaredFeatures: features } };
    expect(decodeNodeItem(bytes)).toEqual(trimNode(json));
    expect(decodeNodeItem(bytes)).toHaveProperty('status.declaredFeatures', features);
  });
});

describe('special types', () => {
  it('writes IntOrString, zero times and FieldsV1 as their JSON forms', () => {
    const d = k8sDecoder();
    // HTTPGetAction.port: IntOrString (type 0 int, 1 string).
    expect(d.decodeObject(msg([2, msg([1, 0], [2, 8080])]), 'core.HTTPGetAction', true)).toEqual({
      port: 8080,
    });
    expect(d.decodeObject(msg([2, msg([1, 1], [3, 'http'])]), 'core.HTTPGetAction', true)).toEqual({
      port: 'http',
    });
    // A zero metav1.Time comes as an empty message. JSON leaves out creationTimestamp (its
    // tag says omitzero) and writes null for one tagged only omitempty (lastProbeTime).
    const keepTimes = { creationTimestamp: true } as const;
    expect(d.decodeObject(msg([8, msg()]), 'meta.ObjectMeta', keepTimes)).toEqual({});
    expect(d.decodeObject(msg([8, time(-62135596800)]), 'meta.ObjectMeta', keepTimes)).toEqual({});
    expect(d.decodeObject(msg([3, msg()]), 'core.PodCondition', true)).toEqual({
      lastProbeTime: null,
    });
    // managedFields[].fieldsV1 carries raw JSON.
    const fields = msg([7, msg([1, Buffer.from('{"f:spec":{}}')])]);
    expect(d.decodeObject(fields, 'meta.ManagedFieldsEntry', true)).toEqual({
      fieldsV1: { 'f:spec': {} },
    });
    const notJson = msg([7, msg([1, Buffer.from('{')])]);
    expect(() => d.decodeObject(notJson, 'meta.ManagedFieldsEntry', true)).toThrow(/not JSON/);
  });
});

describe('int64 without long.js', () => {
  it('reads the same numbers when protobufjs has no Long class (the bundle leaves long.js out)', () => {
    const bytes = msg(
      [1, msg([1, 'n1'])],
      [3, msg([8, msg([1, 'img:1'], [2, 123456789])], [8, msg([1, 'big'], [2, 2 ** 40 + 3])])],
    );
    const withLong = decodeNodeItem(bytes);
    const long = protobuf.util.Long;
    protobuf.util.Long = null as unknown as typeof long;
    protobuf.configure();
    try {
      const withoutLong = decodeNodeItem(bytes);
      expect(withoutLong).toEqual(withLong);
      expect(withoutLong).toHaveProperty('status.images.1.sizeBytes', 2 ** 40 + 3);
    } finally {
      protobuf.util.Long = long;
      protobuf.configure();
    }
  });
});
