// A group's verbs name their operation and say only what the contract cannot: the method, path,
// kind, required flags, choices, kinds and id prefixes come from the operation
// (src/commands/<group>/operations.ts, generated from the contract; src/cmdutil/spec.ts fromContract).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { allGroups } from '../../../src/commands/groups.js';
import { fromContract, type GroupDecl, type OperationFacts } from '../../../src/cmdutil/spec.js';
import { operationsByTag } from '../../../src/scripts/operation-facts.js';

const COMMANDS = new URL('../../../src/commands/', import.meta.url).pathname;

/**
 * `method:` and `path:` properties of the verbs in a declaration file: any object literal that
 * names an operation (`operationId`) and carries either. A verb that calls no operation
 * (`offline: true`: webhooks verify and listen until they become tooling commands) may.
 */
export function handWrittenRoutes(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isObjectLiteralExpression(node)) {
      const props = new Map(
        node.properties.flatMap((p) =>
          ts.isPropertyAssignment(p) && ts.isIdentifier(p.name) ? [[p.name.text, p.initializer] as const] : [],
        ),
      );
      const offline = props.get('offline')?.kind === ts.SyntaxKind.TrueKeyword;
      if (props.has('operationId') && !offline) {
        for (const name of ['method', 'path'])
          if (props.has(name)) {
            const { line } = source.getLineAndCharacterOfPosition(props.get(name)!.getStart());
            found.push(`${file}:${line + 1}: ${name}`);
          }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('verbs name their operation; the contract gives the rest', () => {
  it('no method: or path: is written in a verb of src/commands/*/index.ts, nor by the builders of src/cmdutil/spec-parts.ts', () => {
    const found: string[] = [];
    let verbs = 0;
    for (const dir of readdirSync(COMMANDS, { withFileTypes: true })) {
      if (!dir.isDirectory()) continue;
      const file = join(COMMANDS, dir.name, 'index.ts');
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue;
      }
      // A create, list or get verb is built by src/cmdutil/spec-parts.ts (createVerb, listVerb,
      // getVerb, or a group object's create, list and get), which is checked below.
      verbs += (text.match(/operationId:|\b(?:create|list|get)Verb\(|\b[A-Z]+\.(?:create|list|get)\(/g) ?? []).length;
      found.push(...handWrittenRoutes(`src/commands/${dir.name}/index.ts`, text));
    }
    const parts = new URL('../../../src/cmdutil/spec-parts.ts', import.meta.url).pathname;
    found.push(...handWrittenRoutes('src/cmdutil/spec-parts.ts', readFileSync(parts, 'utf8')));
    expect(verbs).toBeGreaterThan(50);
    expect(found, 'the operation gives them: remove these lines').toEqual([]);
  });

  it('the check catches a method or path beside an operationId, also built by a function, and not a column path', () => {
    const text = [
      "const a = { name: 'get', operationId: 'getThing', method: 'GET', kind: 'get' };",
      'const b = (n: string) => ({ name: n, operationId: `${n}Card`, path: `cards/{card_id}/${n}` });',
      "const c = { header: 'ID', path: 'id' };",
      "const d = { name: 'verify', operationId: '', offline: true, method: 'GET', path: '' };",
    ].join('\n');
    expect(handWrittenRoutes('x.ts', text)).toEqual(['x.ts:1: method', 'x.ts:2: path']);
  });

  it("every verb that calls the API has its operation's method, path and kind (a composite verb keeps its own kind)", () => {
    const facts = new Map([...operationsByTag().values()].flatMap((m) => [...m]));
    let n = 0;
    for (const g of allGroups)
      for (const v of g.verbs) {
        if (v.offline) continue;
        const op = facts.get(v.operationId);
        expect(op, `${g.name} ${v.name}: ${v.operationId}`).toBeDefined();
        expect([v.method, v.path], `${g.name} ${v.name}`).toEqual([op!.method, op!.path]);
        if (!v.composite) expect(v.kind, `${g.name} ${v.name}`).toBe(op!.kind);
        n++;
      }
    expect(n).toBeGreaterThan(50);
  });
});

describe('fromContract', () => {
  const ops: Record<string, OperationFacts> = {
    createThing: {
      method: 'POST',
      path: 'things',
      kind: 'create',
      creates: 'th_',
      body: true,
      fields: {
        owner_id: { required: true, kind: 'id', idPrefix: 'own_' },
        colour: { kind: 'enum', choices: ['red', 'blue'] },
        size: { required: true, kind: 'int' },
      },
    },
    getThing: { method: 'GET', path: 'things/{thing_id}', kind: 'get', requireTenant: true },
  };
  const decl: GroupDecl = {
    name: 'things',
    summary: 's',
    noun: 'thing',
    examples: [],
    columns: [],
    verbs: [
      {
        name: 'create',
        summary: 's',
        examples: [],
        operationId: 'createThing',
        jsonShape: 'j',
        flags: [
          { flags: '--owner <id>', field: 'owner_id', description: 'd' },
          { flags: '--colour <c>', field: 'colour', description: 'd', choices: ['red'] },
          { flags: '--size <n>', field: 'size', description: 'd', default: '1' },
          { flags: '--note <t>', field: 'note', description: 'd' },
        ],
      },
      { name: 'get', summary: 's', examples: [], operationId: 'getThing', jsonShape: 'j' },
    ],
  };

  it('fills what the declaration leaves out and keeps what it says', () => {
    const [create, get] = fromContract(ops, decl).verbs;
    expect(create).toMatchObject({ method: 'POST', path: 'things', kind: 'create', creates: 'th_', body: true });
    expect(create!.flags).toEqual([
      { flags: '--owner <id>', field: 'owner_id', description: 'd', required: true, kind: 'id', idPrefix: 'own_' },
      // The declaration's choices win over the contract's.
      { flags: '--colour <c>', field: 'colour', description: 'd', choices: ['red'], kind: 'enum' },
      // A flag with a default is never required.
      { flags: '--size <n>', field: 'size', description: 'd', default: '1', kind: 'int' },
      { flags: '--note <t>', field: 'note', description: 'd' },
    ]);
    expect(get).toMatchObject({ method: 'GET', path: 'things/{thing_id}', kind: 'get', requireTenant: true });
    expect(get!.creates).toBeUndefined();
  });

  it('a verb naming an operation the group does not have is an error that says to regenerate', () => {
    expect(() => fromContract(ops, { ...decl, verbs: [{ ...decl.verbs[1]!, operationId: 'getOther' }] })).toThrow(
      /getOther.*npm run generate/,
    );
  });
});
