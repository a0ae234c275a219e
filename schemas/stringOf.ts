import { Type } from 'typebox';

/**
 * A string that must be one of `values`, declared as a string with a pattern: where upstream's document
 * has a plain string, generated clients then type it `string` as upstream's do (an enum would make a
 * client's `string` unassignable), and the value is still checked. Typed as the values for our code.
 */
export const stringOf = <const V extends readonly string[]>(values: V, description: string) =>
  Type.Unsafe<V[number]>({ type: 'string', pattern: `^(${values.join('|')})$`, description });
