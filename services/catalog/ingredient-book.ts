/**
 * What the service can say about ingredients, from the knowledge base (never from a catalog's data):
 * every ingredient name it knows (knowledge/names.ts) with its synonyms, the concerns it addresses
 * and the caution lists it is on, each with its one-line reason; and its groups (`ceramides`, `bha`), with
 * their members. A name is read as a label prints it: cleaned as an entry of an INCI list is, then spelled
 * as the parser spells it (accents, case, spaces), then mapped through synonyms and misspellings. A name
 * the knowledge base says nothing of is still an ingredient where the loaded catalog's products list it
 * (`butylene glycol`): it is answered with no facts, never as unknown.
 */
import { create } from '@bufbuild/protobuf';
import { type Ingredient, IngredientSchema } from '../../gen/skinmatch/v1/catalog_pb.ts';
import { cleanEntry } from './inci/parse.ts';
import { canonicalName, misspellingsOf, normalizeSpelling, synonymsOf } from './inci/synonyms.ts';
import { factsOf } from './knowledge/facts.ts';
import { CAUTION_LISTS } from './knowledge/knowledge.ts';
import { GROUPS, groupNamed, type IngredientGroup, isKnownName, KNOWN_NAMES } from './knowledge/names.ts';
import { matchesName } from './knowledge/pattern.ts';

/** What a name asked for is: one ingredient (its canonical name), or a group of the knowledge base. */
export type Resolved =
  | { readonly name: string; readonly group?: undefined }
  | { readonly group: IngredientGroup };

/**
 * The ingredient or group `asked` names, or undefined when the knowledge base says nothing of it. In order:
 * a plain name of the knowledge base or the synonym table; a group's name or alias; unless `plainOnly`, a
 * name one of the knowledge base's patterns matches (`sd alcohol 40` is on the drying-alcohol list by
 * `sd alcohol *`) or one of `listed`, the catalog's own names (sorted).
 */
export function resolveIngredient(
  asked: string,
  plainOnly = false,
  listed: readonly string[] = [],
): Resolved | undefined {
  const label = cleanEntry(asked);
  if (label === null) return undefined;
  const spelled = normalizeSpelling(label);
  const name = canonicalName(label);
  // A synonym names its ingredient (`Water (Aqua)`, `coconut oil`); a group's own word names the group,
  // even where a label prints the word too (`ceramides`).
  if (name !== spelled && isKnownName(name)) return { name };
  const group = groupNamed(spelled) ?? groupNamed(name);
  if (group) return { group };
  if (isKnownName(name)) return { name };
  if (plainOnly || name === '') return undefined;
  return saysAnything(name) || sortedHas(listed, name) ? { name } : undefined;
}

function sortedHas(sorted: readonly string[], name: string): boolean {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < name) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo] === name;
}

function saysAnything(name: string): boolean {
  const facts = factsOf(name);
  return (
    facts.active !== null || facts.barrier !== null || CAUTION_LISTS.some((list) => facts.cautions[list])
  );
}

/** One entry of the search listing: an ingredient or a group, each with every spelling it is found by. */
interface Listing {
  readonly sortKey: string;
  readonly resolved: Resolved;
  readonly spellings: readonly string[];
}

const LISTINGS: readonly Listing[] = [
  ...KNOWN_NAMES.filter((name) => groupNamed(name) === undefined).map((name) => ({
    sortKey: name,
    resolved: { name },
    spellings: [...new Set([name, ...synonymsOf(name), ...misspellingsOf(name)].map(normalizeSpelling))],
  })),
  ...GROUPS.map((group) => ({
    sortKey: group.name,
    resolved: { group },
    spellings: [group.name, ...group.aliases].map(normalizeSpelling),
  })),
].sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));

/**
 * Ingredients and groups one of whose spellings (canonical name, synonym, misspelling, group word)
 * contains `query` spelled and cleaned as get_ingredient reads a name, then the names only the catalog's
 * products list (`listed`, sorted) that contain it; all of them for a blank query. Sorted by name.
 */
export function searchIngredients(query: string, listed: readonly string[] = []): readonly Resolved[] {
  const wanted = normalizeSpelling(cleanEntry(query) ?? query);
  const known =
    wanted === '' ? LISTINGS : LISTINGS.filter((l) => l.spellings.some((s) => s.includes(wanted)));
  const more = catalogOnly(listed).filter((name) => name.includes(wanted));
  const found: Resolved[] = [];
  let k = 0;
  for (const name of more) {
    while (k < known.length && known[k]!.sortKey < name) found.push(known[k++]!.resolved);
    found.push({ name });
  }
  while (k < known.length) found.push(known[k++]!.resolved);
  return found;
}

const catalogOnlyOf = new WeakMap<readonly string[], readonly string[]>();

/** The names of `listed` the knowledge base does not list itself; once per catalog version. */
function catalogOnly(listed: readonly string[]): readonly string[] {
  let names = catalogOnlyOf.get(listed);
  if (!names) {
    names = listed.filter((name) => !isKnownName(name) && groupNamed(name) === undefined);
    catalogOnlyOf.set(listed, names);
  }
  return names;
}

/**
 * What a product's canonical ingredient name must be for a product search naming `asked` to find it: the
 * ingredient itself and the forms its active entry covers (`hyaluronic acid`: sodium hyaluronate, …), or
 * any member of a group (`bha`). Undefined when `asked` is no plain name or group word of the knowledge
 * base: a name only a pattern matches (`vitamin e oil` by `* oil`) would swallow words better read apart.
 */
export function ingredientMatcher(asked: string): ((name: string) => boolean) | undefined {
  const resolved = resolveIngredient(asked, true);
  if (resolved === undefined) return undefined;
  if (resolved.group) {
    const { patterns } = resolved.group;
    return (name) => patterns.some((pattern) => matchesName(pattern, name));
  }
  const own = resolved.name;
  const active = factsOf(own).active;
  const forms = active?.name === own ? active.patterns : [];
  return (name) => name === own || (forms.length > 0 && forms.some((pattern) => matchesName(pattern, name)));
}

export function describe(resolved: Resolved): Ingredient {
  return resolved.group ? describeGroup(resolved.group) : describeIngredient(resolved.name);
}

function describeGroup(group: IngredientGroup): Ingredient {
  return create(IngredientSchema, {
    name: group.name,
    synonyms: [...group.aliases],
    addresses: group.addresses.map(([concern, evidence]) => ({ concern, evidence })),
    flags: [...group.flags],
    reasons: [...group.reasons],
    members: [...group.members],
  });
}

function describeIngredient(name: string): Ingredient {
  const facts = factsOf(name);
  const reasons: string[] = [];
  if (facts.active) reasons.push(facts.active.reason);
  const flags = CAUTION_LISTS.filter((list) => {
    const entry = facts.cautions[list];
    if (entry) reasons.push(entry.reason);
    return entry !== null;
  });
  // Barrier support is no caution list: its reason comes last, with no flag.
  if (facts.barrier) reasons.push(facts.barrier.reason);
  const concerns = facts.active ? Object.entries(facts.active.concerns) : [];
  return create(IngredientSchema, {
    name,
    synonyms: [...synonymsOf(name)],
    addresses: concerns.map(([concern, evidence]) => ({ concern, evidence })),
    flags,
    reasons,
  });
}
