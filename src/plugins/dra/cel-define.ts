// Declares CEL function overloads on a cel-js environment in object form (kube's type names contain dots).
import type { Environment } from '@marcbachmann/cel-js';

/** Declares one overload: `fn(name, paramTypes, returnType, handler, receiverType?)`. */
export type DefineFunction = (
  name: string,
  params: string[],
  returnType: string,
  handler: (...args: never[]) => unknown,
  receiverType?: string,
) => void;

/** A {@link DefineFunction} bound to an environment (object form: type names may contain dots). */
export function functionDefiner(env: Environment): DefineFunction {
  return (name, params, returnType, handler, receiverType) => {
    env.registerFunction({
      name,
      ...(receiverType === undefined ? {} : { receiverType }),
      returnType,
      handler,
      params: params.map((type, i) => ({ name: `arg${i}`, type })),
    });
  };
}
