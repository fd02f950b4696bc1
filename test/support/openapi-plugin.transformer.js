/**
 * Jest transformer for DTO files (`*.dto.ts`, `*.query.ts`): compiles them as `nest build` does,
 * with the @nestjs/swagger CLI plugin of nest-cli.json running on a TypeScript program that has a
 * type checker, so the tests serve the same OpenAPI document as the build.
 *
 * ts-jest cannot do this here: under isolatedModules (tsconfig.test.json) each file is compiled
 * alone and the plugin sees no types (array item types and enum values are lost), and a second
 * ts-jest entry with isolatedModules off is ignored because ts-jest keeps one configuration per
 * Jest project. Every other file still goes through ts-jest.
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { before } = require('@nestjs/swagger/plugin');

const ROOT = path.resolve(__dirname, '../..');
const NEST_CLI = path.join(ROOT, 'nest-cli.json');
const TSCONFIG = path.join(ROOT, 'tsconfig.json');

function pluginOptions() {
  const plugins = JSON.parse(fs.readFileSync(NEST_CLI, 'utf8')).compilerOptions.plugins ?? [];
  const swagger = plugins.find((plugin) => (typeof plugin === 'string' ? plugin : plugin.name) === '@nestjs/swagger');
  if (!swagger) throw new Error('nest-cli.json does not configure the @nestjs/swagger plugin');
  return typeof swagger === 'string' ? {} : (swagger.options ?? {});
}

function compilerOptions() {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    TSCONFIG,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
        throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      },
    },
  );
  return { ...parsed.options, noEmit: false, declaration: false, sourceMap: false, inlineSourceMap: true, inlineSources: true };
}

let options;
let plugin;
let previousProgram;

function compile(sourceText, fileName) {
  options ??= compilerOptions();
  plugin ??= pluginOptions();
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => (path.resolve(name) === fileName ? sourceText : readFile(name));
  // Reusing the previous program keeps the parsed library files between the DTOs of one worker.
  const program = ts.createProgram({ rootNames: [fileName], options, host, oldProgram: previousProgram });
  previousProgram = program;
  let code;
  const result = program.emit(
    program.getSourceFile(fileName),
    (name, text) => {
      if (name.endsWith('.js')) code = text;
    },
    undefined,
    false,
    { before: [before({ ...plugin }, program)] },
  );
  if (code === undefined) {
    const messages = result.diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    throw new Error(`Could not compile ${fileName}: ${messages.join('; ') || 'no output'}`);
  }
  return code;
}

/** The file and the project files it imports, transitively: the types the plugin reads come from them. */
function localSources(fileName, seen = new Map()) {
  if (seen.has(fileName) || !fs.existsSync(fileName)) return seen;
  const text = fs.readFileSync(fileName, 'utf8');
  seen.set(fileName, text);
  for (const [, specifier] of text.matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
    localSources(path.resolve(path.dirname(fileName), `${specifier.replace(/\.js$/, '')}.ts`), seen);
  }
  return seen;
}

module.exports = {
  process(sourceText, sourcePath) {
    return { code: compile(sourceText, path.resolve(sourcePath)) };
  },
  getCacheKey(sourceText, sourcePath, transformOptions) {
    const hash = crypto.createHash('sha256');
    for (const part of [
      fs.readFileSync(__filename, 'utf8'),
      fs.readFileSync(NEST_CLI, 'utf8'),
      fs.readFileSync(TSCONFIG, 'utf8'),
      ts.version,
      require('@nestjs/swagger/package.json').version,
      transformOptions.configString,
      sourcePath,
      sourceText,
    ])
      hash.update(part).update('\0');
    for (const [name, text] of localSources(path.resolve(sourcePath))) hash.update(name).update(text).update('\0');
    return hash.digest('hex');
  },
};
