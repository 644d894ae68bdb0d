// The usage text of every `berth` command, as `berth help` and `berth CMD --help` print it.

const runUsage = `berth run [--kubeconfig PATH] [--context NAME] [--scheduler-name berth]
          [--emulated-version 1.37] [--record LOG [--record-key FILE]]
          [--qps Q --burst B] [--events-qps Q --events-burst B]
          [--config FILE] [--seed S] [--log-level info]
          [--leader-elect=true|false] [--leader-elect-lease-duration 15s]
          [--leader-elect-renew-deadline 10s] [--leader-elect-retry-period 2s]
          [--leader-elect-resource-name berth] [--leader-elect-resource-namespace kube-system]
          [--secure-port 10259] [--bind-address 0.0.0.0]
          [--tls-cert-file FILE --tls-private-key-file FILE]
          [--authorization-always-allow-paths /healthz,/readyz,/livez]
          [--metrics-bind-address 127.0.0.1:PORT | 0]
          [--record-segment-size SIZE [--record-retain N]] [--heap-growth-percent 20]
          [--young-growth-factor 1]

Schedules a real cluster's pods (those with spec.schedulerName: berth) until SIGTERM/SIGINT.
  --kubeconfig, --context       which cluster (default: in-cluster, else KUBECONFIG or
                                ~/.kube/config)
  --scheduler-name NAME         the schedulerName this scheduler answers to (default berth)
  --emulated-version V          schedule as kube-scheduler V would: 1.34, 1.35, 1.36 or 1.37
                                (default 1.37); recorded in the log header
  --record LOG                  write every input and decision to LOG for berth replay
  --record-key FILE             seal the recording: a chained HMAC-SHA-256 on every line
                                with the key in FILE (raw bytes, at least 32), so replay
                                and explain with the same key refuse a forged or cut log
  --record-segment-size SIZE    rotate: --record names a directory of segments of about
                                SIZE each (e.g. 64Mi); each starts with a core snapshot
  --record-retain N             keep only the newest N segments (default 0: keep all)
  --qps Q, --burst B            bind budget (default 50/100)
  --events-qps, --events-burst  budget of condition patches and Events (default: --qps/--burst)
  --config FILE                 a YAML/JSON config file (berth's keys, or a
                                KubeSchedulerConfiguration); flags win over its keys
  --seed S                      tie-breaking seed (default 1)
  --log-level LEVEL             fatal, error, warn, info (default), debug or trace
  --leader-elect…               leader election, with kube-scheduler's flags and defaults
  --secure-port PORT            HTTPS server of /metrics, /healthz, /livez and /readyz
                                (default 10259, as kube-scheduler; 0: none). /metrics needs a
                                bearer token that the API server accepts (TokenReview) and
                                allows to get the path (SubjectAccessReview)
  --bind-address IP             where the HTTPS server listens (default 0.0.0.0: everywhere)
  --tls-cert-file, --tls-private-key-file
                                its PEM certificate and key (default: a self-signed one,
                                made in memory at start-up)
  --authorization-always-allow-paths P,...
                                paths served without a token (default /healthz,/readyz,/livez;
                                a trailing * matches a prefix)
  --metrics-bind-address ADDR   also serve everything over plain HTTP, without
                                authentication, on a loopback address (e.g. 127.0.0.1:10251;
                                default 0: off)
  --heap-growth-percent P       let the heap grow P % past its live data before a full
                                garbage collection (default 20; 0: V8's own policy, which
                                uses more memory and a little less CPU)
  --young-growth-factor F       how much V8's young generation may grow when it fills up
                                (default 1: it keeps its start-up size; V8's own is 2)
`;

const simulateUsage = `berth simulate [--cluster FILE]... [--nodes N --pods M] [--seed S]
               [--record LOG [--record-key FILE]] [--bind-latency-ms X] [--bind-failure-rate P] [--device-driver ready@1000]
               [--horizon 15m] [--config FILE]
               [--emulated-version 1.37] [--json]

Schedules pods on the in-process simulated cluster, on a virtual clock.
  --cluster FILE            Kubernetes manifests (YAML or JSON; repeatable); without
                            --cluster and --nodes, the built-in demo cluster
  --nodes N --pods M        add a generated workload of N nodes and M pods
  --seed S                  seeds tie-breaking, the generator and failures (default 1)
  --record LOG              write the run's event log to LOG for berth replay
  --record-key FILE         seal the log with the key in FILE (raw bytes, at least 32)
  --bind-latency-ms X       delay of each bind's result (default 5)
  --bind-failure-rate P     share of binds that fail, 0 to 1 (default 0)
  --device-driver O[@MS]    the DRA driver played on devices with binding conditions:
                            ready, fail or never, MS after the allocation (default none)
  --horizon D               stop after D of virtual time, such as 90s or 2h (default 15m);
                            the summary says when it was reached
  --config FILE             the config file berth run reads (plain keys, or a
                            KubeSchedulerConfiguration with profiles)
  --emulated-version V      schedule as kube-scheduler V: 1.34–1.37 (default 1.37)
  --json                    print exactly one JSON object instead of the summary
`;

const replayUsage = `berth replay LOG|DIR [--record-key FILE] [--allow-unsealed] [--json]

Re-runs a recorded log through a fresh core, streaming, and checks its integrity (seq,
time, events, bind results, digests) and every decision; exits 1 naming the line of the
first problem. LOG may be one segment of a rotated recording (it replays from its
snapshot); DIR replays all the segments in it in order and checks that they join up.
Digests protect against accidents, not forgery: only a sealed log (--record-key) checked
with its key shows a forged, removed, moved or cut line.
  --record-key FILE         verify the log's seal with this key; refuse (exit 1, naming
                            the line) a line whose seal does not verify, a log sealed with
                            another key, or one that is not sealed
  --allow-unsealed          exit 0 for a log that is not sealed or has no closing line
                            (cut short); without it, such a log replays but exits 1
  --json                    print exactly one JSON object instead of the summary
`;

const explainUsage = `berth explain NS/POD [--cluster FILE... | --log LOG|DIR [--seq N] [--record-key FILE]
              | --kubeconfig PATH]
              [--context NAME] [--config FILE] [--scheduler-name berth] [--seed S]
              [--emulated-version 1.37] [--json]

Explains one scheduling cycle of a pod: every node's filter verdicts (a node's filters stop
at its first rejection, as in kube), the PreFilter results and narrowing, the sampling
(percentageOfNodesToScore, where the walk started, how many nodes it reached), each score
plugin's raw, normalized and weighted score, the totals and the choice, or kube's FitError
message. POD alone means namespace default.
  --cluster FILE            simulate these manifests as berth simulate does, then explain
                            the pod: a placed pod by the decision that placed it (as of its
                            own turn); a pending one as of the end of the run (its next cycle)
  --log LOG|DIR             a recorded log or rotated recording: explain the pod's last
                            decision at or before --seq N (default: its last), from the state
                            replayed just before it with the log's config and seed; exits 1
                            if the recomputed decision differs from the recorded one
  --record-key FILE         with --log: verify the log's seal with this key first, and
                            refuse a log whose seal does not verify (naming the line)
  --kubeconfig, --context   a live cluster (the default, also in-cluster): list it once and
                            explain the cycle berth would run now; writes nothing
  --config FILE             berth's config (profiles, percentageOfNodesToScore), as
                            berth run and simulate read it (not with --log: the log
                            header's config is used)
  --scheduler-name NAME     berth's scheduler name (default berth; not with --log, nor
                            with --config profiles)
  --seed S                  the tie-breaking seed (default 1; not with --log)
  --emulated-version V      explain as kube-scheduler V would schedule: 1.34–1.37 (default
                            1.37; not with --log: the log header's is used)
  --json                    print exactly one JSON object instead of the tables

berth explain group NS/NAME [the same modes and flags] [--api core|plugins]

Explains a pod group: its quorum (members seen, present, gated, placed, bound against
minMember/minCount), the gang step it would take now with each member's traced cycle (its
best node, or every node's reason), the topology domains tried, the victims gang
preemption would evict (and that the whole group then fits) or why it cannot, and why it
waits (podGroup, quorum, fit, hold, timeout, preempting); with --log, also the pod-group
machine's path up to the state explained (just before --seq N, or the log's end).
  --api core|plugins        scheduling.k8s.io/v1beta1 or scheduling.x-k8s.io/v1alpha1
                            (default: whichever has the name; both is an error)
`;

const exportUsage = `berth export-machines [--out DIR]
berth export-machines --trace NS/POD --log LOG|DIR [--json | --mermaid] [--record-key FILE]

Writes every state machine (pod, pod-group) as NAME.json, its config as JSON that XState's
createMachine() loads; NAME.stately.ts, the same as createMachine({...}) code for Stately's
"import from code"; and NAME.mmd, Mermaid stateDiagram-v2. With --trace, it prints instead
the path the pod's machine took in a recorded log, replayed through berth's core: each state
with the log event that moved it there, its seq and time, for each uid the pod had.
  --out DIR                 where to write the machines (default ./machines)
  --trace NS/POD            the pod to trace (POD alone: namespace default)
  --log LOG|DIR             the recorded log, or a rotated recording's directory
  --json                    print the path as one JSON object instead of a table
  --mermaid                 print the pod machine's diagram with the path's states marked
                            (classDef taken) and its steps as numbered edges
  --record-key FILE         verify the log's seal with this key first
`;

/** Each command's usage: the synopsis, one line of purpose, and its flags. */
export const commandUsage: Readonly<Record<string, string>> = {
  run: runUsage,
  simulate: simulateUsage,
  replay: replayUsage,
  explain: explainUsage,
  'export-machines': exportUsage,
};

/** A command's synopsis: its usage up to the first blank line. */
const synopsis = (usage: string): string => (usage.split('\n\n')[0] ?? usage).trimEnd();

/** What `berth help` and `berth --help` print: every command's synopsis. */
export const fullUsage = `berth — an event-sourced Kubernetes scheduler

Usage:
${Object.values(commandUsage)
  .map((usage) => `  ${synopsis(usage).replaceAll('\n', '\n  ')}\n`)
  .join('')}  berth help [COMMAND]              (or: berth COMMAND --help)
  berth version                     (or: berth --version, berth -v)
`;
