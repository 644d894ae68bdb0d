// The pod and pod-group machines as the core runs them: compiled by FlatMachine, or by XState's transition() when chosen.

import {
  type PodContext,
  type PodEvent,
  type PodInput,
  type PodStateName,
  podDelays,
  podEffects,
  podGuards,
  podMachine,
  podUpdates,
} from '../../machines/pod.machine.ts';
import {
  type GroupContext,
  type GroupEvent,
  type GroupInput,
  type GroupStateName,
  groupDelays,
  groupEffects,
  groupGuards,
  groupUpdates,
  podGroupMachine,
} from '../../machines/pod-group.machine.ts';
import { FlatMachine } from './flat-machine.ts';
import { type MachineRunner, selectedMachineRunner } from './machine-runner.ts';
import { XStateRunner } from './xstate-runner.ts';

/** What runs pod machines. */
export type PodRunner = MachineRunner<PodContext, PodEvent, PodInput, PodStateName>;
/** What runs pod group machines. */
export type GroupRunner = MachineRunner<GroupContext, GroupEvent, GroupInput, GroupStateName>;

/** The pod machine's guards, context updates, delays and effect names, for FlatMachine. */
export const podImplementations = {
  guards: podGuards,
  updates: podUpdates,
  delays: podDelays,
  effects: podEffects,
};
/** The group machine's guards, context updates, delays and effect names, for FlatMachine. */
export const groupImplementations = {
  guards: groupGuards,
  updates: groupUpdates,
  delays: groupDelays,
  effects: groupEffects,
};

const compiledPod: PodRunner = new FlatMachine(podMachine, podImplementations);
const compiledGroup: GroupRunner = new FlatMachine(podGroupMachine, groupImplementations);
const xstatePod: PodRunner = new XStateRunner(podMachine);
const xstateGroup: GroupRunner = new XStateRunner(podGroupMachine);

/** The runner of the pod machine (machines/pod.machine.ts) chosen now (see selectMachineRunner). */
export function podRunner(): PodRunner {
  return selectedMachineRunner() === 'xstate' ? xstatePod : compiledPod;
}

/** The runner of the group machine (machines/pod-group.machine.ts) chosen now. */
export function groupRunner(): GroupRunner {
  return selectedMachineRunner() === 'xstate' ? xstateGroup : compiledGroup;
}
