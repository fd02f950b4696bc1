import { Prisma } from '../generated/prisma/client';

/**
 * A UUID version 7 (RFC 9562: 48 bits of Unix milliseconds, then random bits), as Prisma's
 * `@default(uuid(7))` makes them, for rows inserted by SQL: PostgreSQL has uuidv7() only from 18.
 */
export const UUID_V7 = Prisma.sql`encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3) FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid`;
