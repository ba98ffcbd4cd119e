// Organizations, projects and environments: the admin operations the routes and the CLI call.
// Bodies are checked against the schemas (schemas.ts) first; the store checks existence and
// conflicts inside the change's transaction, with its audit row.
import { errors } from '../errors/index.js';
import { capUnits, usdToUnits } from '../store/key-rows.js';
import type { AdminContext } from './context.js';
import { checkBody } from './schemas.js';
import { environmentView, list, orgView, projectView } from './views.js';

export async function listOrgs(ctx: AdminContext): Promise<unknown> {
  return list((await ctx.store.admin.listOrgs()).map(orgView));
}

export async function getOrg(ctx: AdminContext, id: string): Promise<unknown> {
  const org = await ctx.store.admin.getOrg(id);
  if (org === null) throw errors.adminNotFound('organization', id);
  const [projects, environments] = await Promise.all([ctx.store.admin.listProjects(id), ctx.store.admin.listEnvironments(id)]);
  return { ...orgView(org), projects: projects.map((p) => projectView(p, environments)) };
}

export async function createOrg(ctx: AdminContext, body: unknown): Promise<unknown> {
  const input = checkBody('orgCreate', body);
  const org = { id: input.id, credits: usdToUnits(input.credits ?? 0), spendCap: capUnits(input.spendCap) };
  const detail = { credits: input.credits ?? 0, spendCap: input.spendCap ?? null };
  return orgView(await ctx.store.admin.createOrg(org, { actor: ctx.actor, action: 'org.create', target: `org:${input.id}`, detail }));
}

export async function updateOrg(ctx: AdminContext, id: string, body: unknown): Promise<unknown> {
  const input = checkBody('orgUpdate', body);
  const audit = { actor: ctx.actor, action: 'org.update', target: `org:${id}`, detail: { spendCap: input.spendCap } };
  return orgView(await ctx.store.admin.updateOrg(id, capUnits(input.spendCap), audit));
}

async function mustHaveOrg(ctx: AdminContext, org: string): Promise<void> {
  if ((await ctx.store.admin.getOrg(org)) === null) throw errors.adminNotFound('organization', org);
}

export async function listProjects(ctx: AdminContext, org: string): Promise<unknown> {
  await mustHaveOrg(ctx, org);
  const [projects, environments] = await Promise.all([ctx.store.admin.listProjects(org), ctx.store.admin.listEnvironments(org)]);
  return list(projects.map((p) => projectView(p, environments)));
}

export async function createProject(ctx: AdminContext, org: string, body: unknown): Promise<unknown> {
  const input = checkBody('placeCreate', body);
  const audit = { actor: ctx.actor, action: 'project.create', target: `project:${org}/${input.id}`, detail: { spendCap: input.spendCap ?? null } };
  return projectView(await ctx.store.admin.createProject(org, { id: input.id, spendCap: capUnits(input.spendCap) }, audit), []);
}

export async function listEnvironments(ctx: AdminContext, org: string, project: string): Promise<unknown> {
  await mustHaveOrg(ctx, org);
  if ((await ctx.store.admin.getProject(org, project)) === null) throw errors.adminNotFound('project', `${org}/${project}`);
  return list((await ctx.store.admin.listEnvironments(org, project)).map(environmentView));
}

export async function createEnvironment(ctx: AdminContext, org: string, project: string, body: unknown): Promise<unknown> {
  const input = checkBody('placeCreate', body);
  const audit = { actor: ctx.actor, action: 'environment.create', target: `environment:${org}/${project}/${input.id}`, detail: { spendCap: input.spendCap ?? null } };
  return environmentView(await ctx.store.admin.createEnvironment(org, project, { id: input.id, spendCap: capUnits(input.spendCap) }, audit));
}
