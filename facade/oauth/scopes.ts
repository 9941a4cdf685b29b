/** The account endpoint's scopes, and how the consent page says each in plain words. */
export const SCOPES = {
  'scan:write': 'Start skin scans for you and save them to your account',
  'scan:read': 'See the scans in your account and their scores',
  'catalog:read': 'Look up products and ingredients in the catalog',
} as const;

export type Scope = keyof typeof SCOPES;

export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(SCOPES, value);
}

/** The path of the protected resource every access token is bound to. */
export const ACCOUNT_RESOURCE_PATH = '/mcp/account';
