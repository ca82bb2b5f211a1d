// Checks every Neo4j-dialect statement of graphmem with Neo4j's own Cypher
// linter (@neo4j-cypher/language-support, lintCypherQuery): the statements
// Neo4j runs (a cypher/neo4j/ file wins over the shared one of its name), each
// DDL statement of the schema script, and the saved Browser queries.
//
// The linter is given a database schema (graph-schema.json): the Neo4j 5
// functions and procedures graphmem calls, its labels, relationship types,
// property keys (and the keys of parameter maps) and parameters. Any error fails the run, and so does a
// warning that a label, relationship type or property key is not declared:
// against a real database that warning is how a misspelt name shows. A
// statement is linted with its fragments (cypher/fragments/, where a
// fragments/neo4j/ file wins over the shared one) put in.
//
// Usage: node lint.mjs [cypher-dir]   (default: the repository's cypher/)

import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { lintCypherQuery } from '@neo4j-cypher/language-support';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const VERSION = 'CYPHER 5';
const ERROR = 1;
const UNDECLARED = /is not present in the database/;

/** One argument or return column from a signature: `name = default :: TYPE`. */
function field(text) {
  const [head, type] = text.split(' :: ').map((part) => part.trim());
  const [name, defaultValue] = head.split('=').map((part) => part.trim());
  const described = { name, type, description: `${name} :: ${type}`, isDeprecated: false };
  if (defaultValue !== undefined) {
    described.default = `DefaultParameterValue{value=${defaultValue}, type=${type}}`;
  }
  return described;
}

/** Split `a :: X, b = {} :: MAP` on the commas between fields. */
function fields(list) {
  return list.trim() === '' ? [] : list.split(/,\s*(?=[A-Za-z_]+\s*(?:=|::))/).map(field);
}

/** `name(args) :: RETURN` into the shape the linter expects. */
function parseSignature(signature) {
  const match = signature.match(/^([\w.]+)\((.*?)\) :: (.+)$/);
  if (!match) throw new Error(`cannot read the signature ${signature}`);
  const [, name, args, returns] = match;
  return { name, args: fields(args), returns };
}

function declaredFunction(signature, aggregating) {
  const { name, args, returns } = parseSignature(signature);
  return {
    name,
    category: aggregating ? 'Aggregating' : 'Scalar',
    description: signature,
    isBuiltIn: true,
    argumentDescription: args,
    returnDescription: returns,
    signature,
    aggregating,
    isDeprecated: false,
  };
}

function declaredProcedure(signature) {
  const { name, args, returns } = parseSignature(signature);
  return {
    name,
    description: signature,
    mode: 'READ',
    worksOnSystem: false,
    argumentDescription: args,
    returnDescription: fields(returns.replace(/^\(|\)$/g, '')),
    signature,
    admin: false,
    option: { deprecated: false },
  };
}

/** The DbSchema the linter checks against. */
function dbSchema(declared) {
  const aggregating = new Set(declared.aggregatingFunctions);
  const functions = {};
  for (const signature of declared.functions) {
    const fn = declaredFunction(signature, aggregating.has(signature.split('(')[0]));
    functions[fn.name] = fn;
  }
  const procedures = {};
  for (const signature of declared.procedures) {
    const proc = declaredProcedure(signature);
    procedures[proc.name] = proc;
  }
  return {
    labels: declared.labels,
    relationshipTypes: declared.relationshipTypes,
    // Keys of parameter maps (UNWIND $rows AS row ... row.key) count as property
    // keys: the linter cannot tell them from a node's properties.
    propertyKeys: [...declared.propertyKeys, ...declared.parameterMapKeys],
    parameters: Object.fromEntries(declared.parameters.map((name) => [name, null])),
    functions: { [VERSION]: functions },
    procedures: { [VERSION]: procedures },
    defaultLanguage: VERSION,
  };
}

// The saved Browser queries are run by people, not by graphmem: besides what
// graphmem calls, they may call the functions that show its times (epoch
// seconds) as datetimes. graphmem's own statements may not.
const BROWSER_FUNCTIONS = [
  'datetime(input = DEFAULT_TEMPORAL_ARGUMENT :: ANY) :: DATETIME',
  'toInteger(input :: STRING | INTEGER | FLOAT | BOOLEAN) :: INTEGER',
];

/** The schema, with more functions declared for a query that may call them. */
function withFunctions(schema, signatures) {
  if (!signatures) return schema;
  const functions = { ...schema.functions[VERSION] };
  for (const signature of signatures) {
    const fn = declaredFunction(signature, false);
    functions[fn.name] = fn;
  }
  return { ...schema, functions: { [VERSION]: functions } };
}

const INCLUDE = /\{\{(\w+)(?:\((\$?[\w.]+(?:, \$?[\w.]+)*)\))?\}\}/g;
const SLOT = /@(\d?)/g;

/** A fragment's text without its comment lines, on one line: Neo4j's own
 * (cypher/fragments/neo4j/) if it has one, else the shared one. */
function fragmentText(root, path, name) {
  for (const dir of [join(root, 'fragments', 'neo4j'), join(root, 'fragments')]) {
    const fragment = join(dir, `${name}.cypher`);
    if (!existsSync(fragment)) continue;
    return readFileSync(fragment, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line && !line.startsWith('//'))
      .join(' ');
  }
  throw new Error(`${path}: no Cypher fragment named ${name} for neo4j`);
}

/**
 * A statement with its fragments put in, as graphmem.store.statements does: `{{name}}`,
 * `{{name(var)}}` or `{{name(var, $param)}}` becomes the fragment on one line
 * (so the statement's lines keep their numbers), with `@` standing for the
 * only variable and `@1`, `@2` for several.
 */
function included(root, path, text) {
  const expanded = text.replace(INCLUDE, (_, name, list) => {
    const variables = list === undefined ? [] : list.split(', ');
    const body = fragmentText(root, path, name);
    const wanted = Math.max(0, ...[...body.matchAll(SLOT)].map((slot) => Number(slot[1] || 1)));
    if (variables.length !== wanted) {
      const count = wanted === 0 ? 'no variable' : wanted === 1 ? 'a variable' : `${wanted} variables`;
      throw new Error(`${path}: fragment ${name} takes ${count}`);
    }
    return body.replace(SLOT, (_, index) => variables[Number(index || 1) - 1]);
  });
  if (expanded.includes('{{')) throw new Error(`${path}: a fragment include was not recognised`);
  return expanded;
}

function cypherFiles(dir) {
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.cypher')).sort() : [];
}

/** Every query Neo4j may run: [{path, text, line}] (line: where the text starts). */
function neo4jQueries(root) {
  const names = new Set(
    [...cypherFiles(root), ...cypherFiles(join(root, 'neo4j'))].map((f) => f.slice(0, -7)),
  );
  const queries = [];
  for (const name of [...names].sort()) {
    const own = join(root, 'neo4j', `${name}.cypher`);
    const path = existsSync(own) ? own : join(root, `${name}.cypher`);
    const text = included(root, path, readFileSync(path, 'utf8'));
    if (name !== 'schema') {
      queries.push({ path, text, line: 0 });
      continue;
    }
    // Like graphmem.store.statements.Statements.script: DDL split on a lone ';' line.
    let line = 0;
    for (const part of text.split('\n;\n')) {
      if (part.trim()) queries.push({ path, text: part, line });
      line += part.split('\n').length;
    }
  }
  for (const file of cypherFiles(join(root, 'browser'))) {
    const path = join(root, 'browser', file);
    const text = included(root, path, readFileSync(path, 'utf8'));
    queries.push({ path, text, line: 0, functions: BROWSER_FUNCTIONS });
  }
  return queries;
}

function lintAll(queries, schema) {
  return queries.map(({ path, text, line, functions }) => {
    const { diagnostics } = lintCypherQuery(text, withFunctions(schema, functions), {
      consoleCommandsEnabled: false,
    });
    return diagnostics.map((d) => ({
      path,
      line: line + d.range.start.line + 1,
      column: d.range.start.character + 1,
      failing: d.severity === ERROR || UNDECLARED.test(d.message),
      severity: d.severity === ERROR ? 'error' : 'warning',
      message: d.message,
    }));
  });
}

function report(queries, results) {
  let failing = 0;
  results.flat().forEach((d) => {
    failing += d.failing ? 1 : 0;
    const where = `${relative(process.cwd(), d.path)}:${d.line}:${d.column}`;
    console.log(`${where}: ${d.failing ? d.severity : 'note'}: ${d.message}`);
  });
  const files = new Set(queries.map((q) => q.path)).size;
  if (failing > 0) {
    console.log(
      `cypher-lint: ${failing} problem(s) in ${queries.length} Neo4j queries (${files} files).` +
        ' A new label, relationship type, property, parameter, function or procedure must be' +
        ' declared in tools/cypher-lint/graph-schema.json.',
    );
    return 1;
  }
  console.log(`cypher-lint: ${queries.length} Neo4j queries in ${files} files, no errors.`);
  return 0;
}

async function main() {
  const root = process.argv[2] ?? join(HERE, '..', '..', 'cypher');
  const declared = JSON.parse(readFileSync(join(HERE, 'graph-schema.json'), 'utf8'));
  const queries = neo4jQueries(root);
  if (queries.length === 0) {
    console.log(`cypher-lint: no statements found under ${root}`);
    return 1;
  }
  // Each query takes the linter's semantic analysis some hundreds of
  // milliseconds, so the queries are shared out over worker threads.
  const workers = Math.max(1, Math.min(availableParallelism(), 4, queries.length));
  const chunks = Array.from({ length: workers }, (_, i) => queries.filter((_, j) => j % workers === i));
  const results = await Promise.all(
    chunks.map(
      (chunk) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(fileURLToPath(import.meta.url), {
            workerData: { chunk, declared },
          });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  const ordered = queries.map((q) => results.flat().find((r) => r.path === q.path && r.line === q.line));
  return report(queries, ordered.map((r) => r.diagnostics));
}

if (isMainThread) {
  process.exitCode = await main();
} else {
  const { chunk, declared } = workerData;
  const schema = dbSchema(declared);
  const diagnostics = lintAll(chunk, schema);
  parentPort.postMessage(chunk.map((q, i) => ({ path: q.path, line: q.line, diagnostics: diagnostics[i] })));
}
