import { Injectable } from '@nestjs/common';
import { PrismaService } from './prisma.service';

/**
 * The time zone names the database knows (pg_timezone_names), read once per process: analytics
 * computes periods in SQL with `AT TIME ZONE`, which refuses a name the database's tz data lacks
 * even when Node's ICU knows it (`US/Pacific-New`; PGlite ships fewer names than PostgreSQL).
 */
@Injectable()
export class DatabaseTimeZones {
  private names: Promise<ReadonlySet<string>> | undefined;

  constructor(private readonly prisma: PrismaService) {}

  async has(name: string): Promise<boolean> {
    return (await this.load()).has(name);
  }

  private load(): Promise<ReadonlySet<string>> {
    if (!this.names) {
      this.names = this.prisma.$queryRaw<{ name: string }[]>`SELECT name FROM pg_timezone_names`.then((rows) => new Set(rows.map((row) => row.name)));
      // A failed read (the database away) is tried again on the next call, not remembered.
      this.names.catch(() => (this.names = undefined));
    }
    return this.names;
  }
}
