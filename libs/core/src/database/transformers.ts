import { ValueTransformer } from 'typeorm';

/**
 * A bigint column read as a number (node-postgres hands int8 over as a string): for values that
 * stay far below 2^53, such as byte counts and sequence numbers.
 */
export const bigintAsNumber: ValueTransformer = {
  to: (value: number | null | undefined) => value,
  from: (value: string | null) => (value === null ? null : Number(value)),
};
