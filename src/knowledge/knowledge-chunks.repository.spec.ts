import type { Prisma } from '../generated/prisma/client';
import type { PrismaService } from '../database/prisma.service';
import { KnowledgeChunksRepository, type QueryTerm } from './knowledge-chunks.repository';

/** A database that answers the counting statement after a delay, and the search with nothing. */
function fakeDatabase(): { prisma: PrismaService; counts: () => number } {
  let counts = 0;
  const prisma = {
    $queryRaw: async (sql: Prisma.Sql) => {
      if (!sql.sql.includes('present AS')) return [];
      counts++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return [{ passages: 10, grp: 0, strict: 3, loose: 0, present: [true] }];
    },
  } as unknown as PrismaService;
  return { prisma, counts: () => counts };
}

const terms: QueryTerm[] = [{ text: 'shipping', group: 0, weight: 1 }];

describe('KnowledgeChunksRepository word counts', () => {
  it('counts once for questions that arrive together, and not again at the same knowledge version', async () => {
    const { prisma, counts } = fakeDatabase();
    const repository = new KnowledgeChunksRepository(prisma);
    const bot = { id: 'bot', language: 'en', knowledgeVersion: 1 };
    await Promise.all(Array.from({ length: 20 }, () => repository.search('tenant', bot, terms, 12)));
    expect(counts()).toBe(1);
    await repository.search('tenant', bot, terms, 12);
    expect(counts()).toBe(1);
    // The passages changed: counted again.
    await repository.search('tenant', { ...bot, knowledgeVersion: 2 }, terms, 12);
    expect(counts()).toBe(2);
  });
});
