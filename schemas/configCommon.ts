import { Type, type TSchema } from 'typebox';

/** A value that may be `null` on the wire (upstream's Go pointers). */
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** A list of strings that may be `null` (upstream's Go nil slices). */
export const nullableStrings = (description?: string) =>
  Type.Unsafe<string[] | null>({
    type: ['array', 'null'],
    items: { type: 'string' },
    ...(description ? { description } : {}),
  });

/** A `map<string,string>`. */
export const stringRecord = (description?: string) =>
  Type.Record(Type.String(), Type.String(), description ? { description } : {});

/** An int64 integer. */
export const int64 = (description?: string) =>
  Type.Integer({ format: 'int64', ...(description ? { description } : {}) });
