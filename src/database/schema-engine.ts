import { readFile } from 'node:fs/promises';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine } from '@prisma/schema-engine-wasm';

export type { SchemaEngine };

type EngineModule = typeof import('@prisma/schema-engine-wasm/schema_engine_bg');

/** The slice of the WebAssembly global this loader uses (not in Node's type definitions). */
declare const WebAssembly: {
  instantiate(bytes: Uint8Array, imports: Record<string, unknown>): Promise<{ instance: { exports: Record<string, unknown> } }>;
};

let engineModule: Promise<EngineModule> | undefined;

/**
 * Loads Prisma's schema engine compiled to WebAssembly. Its package entry imports the .wasm file
 * as an ES module, which Node 20 cannot do, so the bindings are wired to the module by hand.
 */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    const bindings: EngineModule = await import('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasmPath = require.resolve('@prisma/schema-engine-wasm').replace(/schema_engine\.js$/, 'schema_engine_bg.wasm');
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {
      './schema_engine_bg.js': bindings,
    });
    bindings.__wbg_set_wasm(instance.exports as Parameters<EngineModule['__wbg_set_wasm']>[0]);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return engineModule;
}

/** Opens the schema engine on a database reached through a Prisma driver adapter. */
export async function openSchemaEngine(
  adapterFactory: SqlMigrationAwareDriverAdapterFactory,
  schema: { path: string; content: string },
  log: (line: string) => void = () => undefined,
): Promise<SchemaEngine> {
  const { SchemaEngine } = await loadEngineModule();
  return SchemaEngine.new({ datamodels: [[schema.path, schema.content]] }, log, bindMigrationAwareSqlAdapterFactory(adapterFactory));
}

export const NO_SCHEMA_FILTER = { externalTables: [] as string[], externalEnums: [] as string[] };
