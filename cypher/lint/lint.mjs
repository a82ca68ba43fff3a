#!/usr/bin/env node
// Lints strata's .cypher files with Neo4j's own Cypher parser and semantic analysis
// (@neo4j-cypher/language-support). Every file must hold exactly one statement and declare the
// parameters it uses in header comments:
//
//   // @param rows LIST<MAP>
//   // @param k INTEGER
//
// A file of several statements separated by semicolons (docker/saved-queries.cypher) says so
// with a "// @statements many" line; its parameters are declared the same way. A file written
// to be pasted into Neo4j Browser says so with a "// @browser" line: Browser's console commands
// (":param name => value;", which set a query's parameters before it) are then parsed and
// checked as Browser's own editor does; elsewhere they are an error.
//
// The schema the linter checks against is testData.mockSchema (real db.* and gds.* procedure and
// function signatures) with strata's labels, relationship types and property keys from
// schema.json, plus the declared parameters of the file. Every diagnostic fails the run: errors,
// warnings about unknown labels or properties (almost always a typo here) and deprecations (they
// are the next version's errors). Each file is checked as Cypher 5 and as Cypher 25, because
// Neo4j 5.26 runs the former and 2025.x databases may default to the latter.
//
// Usage: node lint.mjs [file-or-directory ...]   (default: ../queries next to this script)
// Output: one "path:line:col: severity: message" line per problem; exit status 1 if there is any.

import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  lintCypherQuery,
  parseParameters,
  parseStatementsStrs,
  testData,
} from '@neo4j-cypher/language-support';

const here = dirname(fileURLToPath(import.meta.url));
const versions = ['CYPHER 5', 'CYPHER 25'];

// Sample values for declared parameter types. The semantic analysis infers parameter types from
// these values, so a STRING passed where an INTEGER is needed is reported.
const samples = {
  STRING: 'x',
  INTEGER: 1,
  FLOAT: 0.5,
  BOOLEAN: true,
  LIST: [],
  MAP: {},
  ANY: null,
};

function sampleFor(type) {
  const base = type.replace(/<.*$/, '').toUpperCase();
  if (!(base in samples)) {
    return { error: `unknown parameter type ${type} (use ${Object.keys(samples).join(', ')})` };
  }
  return { value: samples[base] };
}

function loadSchema() {
  const own = JSON.parse(readFileSync(join(here, 'schema.json'), 'utf8'));
  const mock = testData.mockSchema;
  const procedures = {};
  const functions = {};
  for (const v of versions) {
    procedures[v] = { ...(mock.procedures?.[v] ?? {}), ...(own.procedures?.[v] ?? {}) };
    functions[v] = { ...(mock.functions?.[v] ?? {}), ...(own.functions?.[v] ?? {}) };
  }
  return {
    procedures,
    functions,
    labels: own.labels,
    relationshipTypes: own.relationshipTypes,
    propertyKeys: own.propertyKeys,
    databaseNames: mock.databaseNames,
    aliasNames: mock.aliasNames,
    userNames: mock.userNames,
  };
}

// declaredParams reads "// @param name TYPE" header lines.
function declaredParams(text, report) {
  const params = {};
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const m = line.match(/^\s*\/\/\s*@param\s+(\S+)\s+(\S+)\s*$/);
    if (!m) {
      if (/@param\b/.test(line)) report(i + 1, 1, 'error', 'malformed @param line; want "// @param name TYPE"');
      return;
    }
    const [, name, type] = m;
    if (name in params) report(i + 1, 1, 'error', `parameter $${name} declared twice`);
    const { value, error } = sampleFor(type);
    if (error) report(i + 1, 1, 'error', error);
    params[name] = value;
  });
  return params;
}

function lintFile(path, schema) {
  const problems = [];
  const report = (line, col, severity, message) =>
    problems.push({ line, col, severity, message });
  const text = readFileSync(path, 'utf8');

  const params = declaredParams(text, report);
  const statements = parseStatementsStrs(text);
  const many = /^\s*\/\/\s*@statements\s+many\s*$/m.test(text);
  const browser = /^\s*\/\/\s*@browser\s*$/m.test(text);
  if (many ? statements.length === 0 : statements.length !== 1) {
    report(1, 1, 'error', `want exactly one statement per file, found ${statements.length}`);
  }
  const used = new Set(parseParameters(text, browser));
  for (const name of Object.keys(params)) {
    if (!used.has(name)) report(1, 1, 'error', `parameter $${name} is declared but never used`);
  }

  const seen = new Set();
  for (const version of versions) {
    const { diagnostics } = lintCypherQuery(
      text,
      { ...schema, parameters: params, defaultLanguage: version },
      { consoleCommandsEnabled: browser },
    );
    for (const d of diagnostics) {
      const severity = d.severity === 1 ? 'error' : d.severity === 2 ? 'warning' : 'info';
      const line = d.range.start.line + 1;
      const col = d.range.start.character + 1;
      const message = d.message.replace(/\s+/g, ' ').trim();
      const key = `${line}:${col}:${message}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const deprecated = d.tags?.includes(2) ? ' [deprecated]' : '';
      report(line, col, severity, `${message}${deprecated} (${version})`);
    }
  }
  return problems;
}

function collect(target, out) {
  const st = statSync(target);
  if (st.isDirectory()) {
    for (const name of readdirSync(target).sort()) collect(join(target, name), out);
  } else if (target.endsWith('.cypher')) {
    out.push(target);
  }
  return out;
}

function main(argv) {
  const targets = argv.length > 0 ? argv : [join(here, '..', 'queries')];
  const files = targets.flatMap((t) => collect(resolve(t), []));
  if (files.length === 0) {
    console.error(`no .cypher files in ${targets.join(', ')}`);
    return 1;
  }
  const schema = loadSchema();
  let failed = 0;
  for (const file of files) {
    const shown = relative(process.cwd(), file) || file;
    const problems = lintFile(file, schema);
    for (const p of problems) console.log(`${shown}:${p.line}:${p.col}: ${p.severity}: ${p.message}`);
    if (problems.length > 0) failed++;
  }
  console.log(`cypher lint: ${files.length} files, ${failed} with problems`);
  return failed > 0 ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
