import { z } from 'zod';

const Name = z.string().min(1).max(255);

/**
 * The static org tree of one tenant, as in a `directory.yaml`:
 * `{tenant: acme, orgs: {eng: {teams: {platform: [alice, bob]}, users: [dana]}}}`
 * (`users` lists members of the org who belong to no team).
 */
export const OrgDirectoryDefinitionSchema = z.strictObject({
  tenant: Name,
  orgs: z
    .record(
      Name,
      z
        .strictObject({
          teams: z.record(Name, z.array(Name).nullable().default([])).nullable().default({}),
          users: z.array(Name).default([]),
        })
        .nullable()
        .default({ teams: {}, users: [] }),
    )
    .default({}),
});
export type OrgDirectoryDefinition = z.input<typeof OrgDirectoryDefinitionSchema>;
