// Pins the pod-field parsers against kube 1.34: which containers hold host ports, and the API's defaults.
import { describe, expect, it } from 'vitest';
import { parseHostPorts, parseSchedulingGates } from './pod-fields.ts';

describe('parseHostPorts', () => {
  const port = (p: Record<string, unknown>) => ({ ports: [p] });

  it.each<[string, Record<string, unknown>, unknown[]]>([
    ['a pod without containers', {}, []],
    ['a container without ports', { containers: [{}] }, []],
    [
      'an app container’s host port, with kube’s defaults for hostIP and protocol',
      { containers: [port({ containerPort: 8080, hostPort: 80 })] },
      [{ hostIP: '0.0.0.0', protocol: 'TCP', port: 80 }],
    ],
    [
      'the given hostIP and protocol',
      { containers: [port({ hostPort: 53, hostIP: '10.0.0.1', protocol: 'UDP' })] },
      [{ hostIP: '10.0.0.1', protocol: 'UDP', port: 53 }],
    ],
    [
      'a zero hostPort (none asked)',
      { containers: [port({ containerPort: 80, hostPort: 0 })] },
      [],
    ],
    ['a container port alone', { containers: [port({ containerPort: 80 })] }, []],
    [
      'a sidecar init container’s host port (restartPolicy Always), before the app’s',
      {
        initContainers: [{ restartPolicy: 'Always', ...port({ hostPort: 9000 }) }],
        containers: [port({ hostPort: 80 })],
      },
      [
        { hostIP: '0.0.0.0', protocol: 'TCP', port: 9000 },
        { hostIP: '0.0.0.0', protocol: 'TCP', port: 80 },
      ],
    ],
    [
      'no host port of an ordinary init container (it exits before the app starts)',
      { initContainers: [port({ hostPort: 9000 })], containers: [{}] },
      [],
    ],
    [
      'no host port of an init container with another restartPolicy',
      { initContainers: [{ restartPolicy: 'OnFailure', ...port({ hostPort: 9000 }) }] },
      [],
    ],
    [
      'with hostNetwork, an unset hostPort defaulted to the containerPort (app and sidecar)',
      {
        hostNetwork: true,
        initContainers: [
          { restartPolicy: 'Always', ...port({ containerPort: 9000 }) },
          port({ containerPort: 9001 }),
        ],
        containers: [
          {
            ports: [
              { containerPort: 80, hostPort: 0 },
              { containerPort: 81, hostPort: null },
            ],
          },
        ],
      },
      [
        { hostIP: '0.0.0.0', protocol: 'TCP', port: 9000 },
        { hostIP: '0.0.0.0', protocol: 'TCP', port: 80 },
        { hostIP: '0.0.0.0', protocol: 'TCP', port: 81 },
      ],
    ],
    [
      'with hostNetwork, a hostPort that is set stays',
      { hostNetwork: true, containers: [port({ containerPort: 80, hostPort: 8080 })] },
      [{ hostIP: '0.0.0.0', protocol: 'TCP', port: 8080 }],
    ],
    [
      'hostNetwork only when it is true',
      { hostNetwork: 'true', containers: [port({ containerPort: 80 })] },
      [],
    ],
    [
      'nothing from malformed entries',
      {
        initContainers: 'x',
        containers: [null, { ports: 'x' }, { ports: [7, port({ hostPort: '80' }).ports[0]] }],
      },
      [],
    ],
  ])('reads %s', (_name, spec, want) => {
    expect(parseHostPorts(spec)).toEqual(want);
  });
});

describe('parseSchedulingGates', () => {
  it('keeps each gate, unnamed ones as empty names', () => {
    expect(parseSchedulingGates([{ name: 'a' }, {}, 3])).toEqual(['a', '', '']);
    expect(parseSchedulingGates(undefined)).toEqual([]);
  });
});
