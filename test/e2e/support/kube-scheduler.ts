// The real kube-scheduler as a reference: started against a test cluster, stopped by pid.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster } from './cluster.ts';

/** A running kube-scheduler (scheduler name `default-scheduler`). */
export interface KubeScheduler {
  logPath: string;
  /** SIGTERM, then SIGKILL after 5 s; resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Starts the cluster's kube-scheduler binary with leader election off and no serving port,
 * logging to `kube-scheduler.log` in the cluster dir.
 */
export function startKubeScheduler(cluster: Cluster): KubeScheduler {
  const configPath = join(cluster.dir, 'kube-scheduler.yaml');
  writeFileSync(
    configPath,
    [
      'apiVersion: kubescheduler.config.k8s.io/v1',
      'kind: KubeSchedulerConfiguration',
      'clientConnection:',
      `  kubeconfig: ${cluster.kubeconfig}`,
      '  qps: 50',
      '  burst: 100',
      'leaderElection:',
      '  leaderElect: false',
      '',
    ].join('\n'),
  );
  const logPath = join(cluster.dir, 'kube-scheduler.log');
  const log = createWriteStream(logPath);
  const child: ChildProcess = spawn(
    join(cluster.binDir, 'kube-scheduler'),
    [`--config=${configPath}`, '--secure-port=0'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  return {
    logPath,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
