/**
 * The container image's entry point: `node scripts/role.ts <role>` runs one process of the service, so one
 * image serves every Deployment and the migration Job. The role's module is imported into this process
 * (not spawned), so the process that receives SIGTERM is the one that handles it.
 */
import { fileURLToPath } from 'node:url';

/** Each role and the module that is its process. */
export const ROLES = {
  facade: 'facade/main.ts',
  core: 'services/core/main.ts',
  inference: 'services/inference/main.ts',
  migrate: 'services/core/migrate.ts',
} as const;

export type Role = keyof typeof ROLES;

export function isRole(name: string | undefined): name is Role {
  return name !== undefined && Object.hasOwn(ROLES, name);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const role = process.argv[2];
  if (!isRole(role)) {
    process.stderr.write(
      `usage: node scripts/role.ts <${Object.keys(ROLES).join('|')}>, got "${role ?? ''}"\n`,
    );
    process.exit(2);
  }
  await import(new URL(`../${ROLES[role]}`, import.meta.url).href);
}
