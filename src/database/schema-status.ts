import { Injectable } from '@nestjs/common';
import { migrationDirectoryNames } from './migrate';
import { PrismaService } from './prisma.service';
import { describeDatabaseError, isSchemaMissing, MIGRATE_COMMAND } from './sql-state';

/**
 * Whether the database holds every migration of prisma/migrations (read from `_prisma_migrations`),
 * for the readiness probe: an empty or half-migrated database answers `SELECT 1` but fails every
 * request. Once complete it is not read again (migrations are only ever added).
 */
@Injectable()
export class SchemaStatus {
  private complete = false;

  constructor(private readonly prisma: PrismaService) {}

  /** Undefined when migrated; else why not, with the command that fixes it. Throws when the database cannot be read. */
  async problem(): Promise<string | undefined> {
    if (this.complete) return undefined;
    let applied: Set<string>;
    try {
      const rows = await this.prisma.$queryRaw<
        { name: string }[]
      >`SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`;
      applied = new Set(rows.map((row) => row.name));
    } catch (error) {
      if (isSchemaMissing(error)) return `not migrated (no tables): run ${MIGRATE_COMMAND}`;
      throw new Error(describeDatabaseError(error), { cause: error });
    }
    const pending = (await migrationDirectoryNames()).filter((name) => !applied.has(name));
    if (pending.length) return `${pending.length} migration(s) not applied (first: ${pending[0]}): run ${MIGRATE_COMMAND}`;
    this.complete = true;
    return undefined;
  }
}
