/**
 * examples/kubernetes/indexed-job.yaml, without a cluster: it must be a valid batch/v1 Job by Kubernetes' own API
 * schema (the kubernetes-models package compiles it), hold the fields the recipe relies on with no misspelt key
 * among them (the API schema admits unknown fields; a server with strict field validation would not), and its
 * pod script, run by sh with the volumes mapped to temp folders, must score shard I of N as examples/slurm/ does.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Job } from 'kubernetes-models/batch/v1';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { evalArgsOf, installRecordingCommands } from '../support/recording-commands.js';
import { repoRoot } from '../support/shared-data.js';
import { makeTempDir } from '../support/temp-dirs.js';

const manifestFile = path.join(repoRoot, 'examples', 'kubernetes', 'indexed-job.yaml');
const readManifest = (): unknown => parseYaml(readFileSync(manifestFile, 'utf8'));

/** The fields the recipe relies on, closed: any other key in these objects is a mistake. */
const volumeMount = z.strictObject({
  name: z.string(),
  mountPath: z.string().startsWith('/'),
  subPath: z.string().optional(),
  readOnly: z.boolean().optional(),
});
const recipe = z.strictObject({
  apiVersion: z.literal('batch/v1'),
  kind: z.literal('Job'),
  metadata: z.strictObject({ name: z.string() }),
  spec: z.strictObject({
    // The pod learns its shard from JOB_COMPLETION_INDEX, which only an Indexed Job sets.
    completionMode: z.literal('Indexed'),
    completions: z.number().int().positive(),
    parallelism: z.number().int().positive(),
    backoffLimitPerIndex: z.number().int().nonnegative(),
    template: z.strictObject({
      spec: z.strictObject({
        // A failed shard is retried as a new pod (per index), not restarted in place.
        restartPolicy: z.literal('Never'),
        containers: z.tuple([
          z.strictObject({
            name: z.string(),
            image: z.string(),
            env: z.array(z.strictObject({ name: z.string(), value: z.string() })),
            command: z.tuple([z.literal('sh'), z.literal('-c')]),
            args: z.tuple([z.string()]),
            volumeMounts: z.array(volumeMount),
          }),
        ]),
        volumes: z.array(z.strictObject({ name: z.string(), persistentVolumeClaim: z.strictObject({ claimName: z.string() }) })),
      }),
    }),
  }),
});
type Recipe = z.infer<typeof recipe>;

/** What a manifest gets wrong for this recipe, beyond its shape: none for a good one. */
function recipeProblems(manifest: unknown): string[] {
  const parsed = recipe.safeParse(manifest);
  if (!parsed.success) return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
  const { spec } = parsed.data;
  const [container] = spec.template.spec.containers;
  const problems: string[] = [];
  const shards = container.env.find((variable) => variable.name === 'SHARDS')?.value;
  if (shards !== String(spec.completions)) problems.push(`SHARDS is ${shards}, completions ${spec.completions}`);
  if (spec.parallelism > spec.completions) problems.push('parallelism exceeds completions');
  const volumes = new Set(spec.template.spec.volumes.map((volume) => volume.name));
  for (const mount of container.volumeMounts) if (!volumes.has(mount.name)) problems.push(`mount ${mount.mountPath} names no volume (${mount.name})`);
  return problems;
}

function runPodScript(script: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('sh', ['-c', script], { env, encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

describe('examples/kubernetes/indexed-job.yaml', () => {
  it("is a valid batch/v1 Job by Kubernetes' API schema", () => {
    expect(() => new Job(readManifest() as ConstructorParameters<typeof Job>[0]).validate()).not.toThrow();
  });

  it('holds the fields the recipe relies on, consistently (SHARDS = completions, every mount a volume)', () => {
    expect(recipeProblems(readManifest())).toEqual([]);
  });

  it('EXPECTED FAILURE – a misspelt key, a NonIndexed job, SHARDS out of step and a mount of no volume are each found', () => {
    const edits: [string, (manifest: Recipe) => unknown, RegExp][] = [
      ['a misspelt key', (m) => ({ ...m, spec: { ...m.spec, completionsMode: 'Indexed' } }), /completionsMode/],
      ['NonIndexed', (m) => ({ ...m, spec: { ...m.spec, completionMode: 'NonIndexed' } }), /completionMode/],
      ['completions without SHARDS', (m) => ({ ...m, spec: { ...m.spec, completions: 4 } }), /SHARDS is 8, completions 4/],
      [
        'a mount of no volume',
        (m) => {
          const copy = structuredClone(m);
          copy.spec.template.spec.volumes[0]!.name = 'other';
          return copy;
        },
        /names no volume/,
      ],
    ];
    for (const [name, edit, problem] of edits) expect(recipeProblems(edit(readManifest() as Recipe)).join('\n'), name).toMatch(problem);
    // Kubernetes' schema refuses what it knows to be wrong.
    const badMode = { ...(readManifest() as Recipe), spec: { ...(readManifest() as Recipe).spec, completionMode: 'Index' } };
    expect(() => new Job(badMode as unknown as ConstructorParameters<typeof Job>[0]).validate()).toThrow(/completionMode/);
  });

  it("the pod's script, with its volumes mapped to folders here, scores shard I of N into its own cache and links the shard; a retried pod keeps it", async () => {
    const manifest = readManifest() as Recipe;
    const [container] = manifest.spec.template.spec.containers;
    const folder = makeTempDir('k8s-pod');
    // What a mount does: the pod's /out is the claim's subPath. Longest mount paths first.
    let script = container.args[0];
    for (const mount of [...container.volumeMounts].sort((a, b) => b.mountPath.length - a.mountPath.length)) {
      const mapped = path.join(folder, 'claim', mount.subPath ?? '');
      mkdirSync(mapped, { recursive: true });
      script = script.replaceAll(`${mount.mountPath}/`, `${mapped}/`);
    }
    expect(script).not.toMatch(/[\s"](\/out|\/models|\/data)\//);
    const commands = installRecordingCommands(folder, ['mlrb-eval']);
    const shards = container.env.find((variable) => variable.name === 'SHARDS')?.value ?? '';
    const env = { PATH: commands.path, SHARDS: shards, JOB_COMPLETION_INDEX: '3', HOSTNAME: 'mlrb-mmlu-3-abcde' };
    const first = await runPodScript(script, env);
    expect(first.code, first.stderr).toBe(0);
    const out = path.join(folder, 'claim', 'out');
    const [call] = commands.calls('mlrb-eval');
    const parsed = evalArgsOf(call);
    expect(parsed.options).toMatchObject({
      suite: 'mmlu',
      numFewshot: 5,
      shard: { index: 3, count: manifest.spec.completions },
      cacheDir: path.join(out, 'cache', `shard-3-of-${shards}`),
    });
    expect(readdirSync(path.join(out, 'shards'))).toEqual([`shard-3-of-${shards}.json`]);

    const retried = await runPodScript(script, { ...env, HOSTNAME: 'mlrb-mmlu-3-fghij' });
    expect(retried.code).toBe(0);
    expect(retried.stdout).toContain('finished earlier, kept');
    expect(commands.calls('mlrb-eval')).toHaveLength(1);
  });
});
