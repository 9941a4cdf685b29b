/**
 * Every name the knowledge base can answer for, whatever catalog is loaded (README.md, Names and groups):
 *
 * - ingredient names: the canonical names of the synonym table and every plain name of the data files (an
 *   exact `match` or `except` pattern, an entry name that is its own pattern);
 * - groups: an entry name that is no ingredient name itself (`ceramides`, `green tea`, `polysorbates`),
 *   whose members are its patterns, and the group words of groups.json (`bha`, `cica`), each with its reason.
 *
 * A name a wildcard pattern matches (`sd alcohol 40`, `jojoba seed oil`) is known too, but cannot be
 * enumerated: it is answered when asked for (ingredient-book.ts), not listed.
 */
import type { Measure } from '../../shared/measures.ts';
import { canonicalName, canonicalNames, normalizeSpelling } from '../inci/synonyms.ts';
import activesData from './actives.json' with { type: 'json' };
import animalData from './animal-derived.json' with { type: 'json' };
import barrierData from './barrier-support.json' with { type: 'json' };
import dryingData from './drying-alcohols.json' with { type: 'json' };
import { knowledgeError } from './entry-list.ts';
import fragranceData from './fragrance.json' with { type: 'json' };
import fungalData from './fungal-acne.json' with { type: 'json' };
import groupsData from './groups.json' with { type: 'json' };
import { CAUTION_LISTS, type Evidence, KNOWLEDGE } from './knowledge.ts';
import { compilePattern, matchesName, type NamePattern } from './pattern.ts';
import poreData from './pore-clogging.json' with { type: 'json' };
import richData from './rich-texture.json' with { type: 'json' };

export interface IngredientGroup {
  /** The group's name as the knowledge base writes it (`ceramides`, `bha`). */
  readonly name: string;
  /** Other words for it (`cica` for centella). */
  readonly aliases: readonly string[];
  /** Canonical names and name patterns it covers, as written in the data (`ceramide *`). */
  readonly members: readonly string[];
  readonly patterns: readonly NamePattern[];
  /** What the knowledge base says of every member alike: an entry's concerns and caution lists. */
  readonly addresses: readonly (readonly [Measure, Evidence])[];
  readonly flags: readonly string[];
  readonly reasons: readonly string[];
}

interface RawEntry {
  readonly name: string;
  readonly match?: readonly string[];
  readonly except?: readonly string[];
}
const FILES: Record<string, readonly RawEntry[]> = {
  actives: activesData.actives,
  fragrance: fragranceData.entries,
  'drying-alcohols': dryingData.entries,
  'fungal-acne': fungalData.entries,
  'pore-clogging': poreData.entries,
  'rich-texture': richData.entries,
  'animal-derived': animalData.entries,
  'barrier-support': barrierData.entries,
};

const isPlain = (pattern: string) => !pattern.includes('*') && !pattern.startsWith('@');

function knownNames(): string[] {
  const names = new Set(canonicalNames());
  for (const entries of Object.values(FILES)) {
    for (const entry of entries) {
      for (const pattern of [...(entry.match ?? [entry.name]), ...(entry.except ?? [])]) {
        if (isPlain(pattern)) names.add(pattern);
      }
    }
  }
  return [...names].sort();
}

/** Every plain canonical ingredient name of the knowledge base, sorted. */
export const KNOWN_NAMES: readonly string[] = knownNames();
const KNOWN = new Set(KNOWN_NAMES);

export const isKnownName = (name: string) => KNOWN.has(name);

/**
 * An entry's name that its own patterns do not match (`ceramides`: `ceramide *`; `green tea`: `camellia
 * sinensis leaf extract`, …) names a group, with every entry of that name across the files (barrier
 * support also lists the word `ceramides` as labels print it). Not a name the synonym table maps to another
 * ingredient: `coconut oil` is cocos nucifera oil, answered as that ingredient.
 */
function entryGroups(): IngredientGroup[] {
  const all = Object.entries(FILES).flatMap(([file, entries]) => entries.map((entry) => ({ file, entry })));
  const grouping = new Set(
    all
      .filter(({ entry }) => {
        const own = (entry.match ?? [entry.name]).map(compilePattern);
        const synonym = canonicalName(entry.name) !== entry.name && KNOWN.has(canonicalName(entry.name));
        return !synonym && !own.some((pattern) => matchesName(pattern, entry.name));
      })
      .map(({ entry }) => entry.name),
  );
  const byName = new Map<string, { file: string; entry: RawEntry }[]>();
  for (const found of all) {
    if (grouping.has(found.entry.name))
      byName.set(found.entry.name, [...(byName.get(found.entry.name) ?? []), found]);
  }
  return [...byName].map(([name, found]) => {
    const members = [...new Set(found.flatMap(({ entry }) => entry.match ?? [entry.name]))];
    const active = KNOWLEDGE.actives.entries.find(
      (entry) => entry.name === name && found.some((f) => f.file === 'actives'),
    );
    const flags = CAUTION_LISTS.filter((list) => found.some((f) => f.file === list));
    const listed = flags.map((list) => KNOWLEDGE.lists[list].entries.find((entry) => entry.name === name)!);
    const barrier = found.some((f) => f.file === 'barrier-support')
      ? KNOWLEDGE.barrier.entries.find((entry) => entry.name === name)
      : undefined;
    return {
      name,
      aliases: [],
      members,
      patterns: members.map(compilePattern),
      addresses: active ? (Object.entries(active.concerns) as [Measure, Evidence][]) : [],
      flags,
      reasons: [active?.reason, ...listed.map((entry) => entry.reason), barrier?.reason].filter(
        (reason): reason is string => reason !== undefined,
      ),
    };
  });
}

interface RawGroup {
  readonly name: string;
  readonly aliases: readonly string[];
  readonly members: readonly string[];
  readonly reason: string;
}

/** The group words of groups.json, checked: members that are plain names must be known ones. */
function wordGroups(): IngredientGroup[] {
  return (groupsData.groups as readonly RawGroup[]).map((raw) => {
    const file = 'groups.json';
    if (typeof raw.reason !== 'string' || raw.reason.trim() === '' || /[\r\n]/.test(raw.reason)) {
      knowledgeError(file, `group "${raw.name}" needs its reason on one line`);
    }
    if (raw.members.length === 0) knowledgeError(file, `group "${raw.name}" has no members`);
    for (const member of raw.members) {
      if (isPlain(member) && !KNOWN.has(member))
        knowledgeError(file, `group "${raw.name}": unknown member "${member}"`);
    }
    return {
      name: raw.name,
      aliases: raw.aliases,
      members: raw.members,
      patterns: raw.members.map(compilePattern),
      addresses: [],
      flags: [],
      reasons: [raw.reason],
    };
  });
}

function groupsBySpelling(groups: readonly IngredientGroup[]): Map<string, IngredientGroup> {
  const bySpelling = new Map<string, IngredientGroup>();
  for (const group of groups) {
    for (const spelling of [group.name, ...group.aliases].map(normalizeSpelling)) {
      // A group word must not hide an ingredient name or synonym; one claimed twice would be ambiguous.
      const hides = group.aliases.length > 0 && KNOWN.has(canonicalName(spelling));
      if (hides || bySpelling.has(spelling)) {
        knowledgeError('groups.json', `"${spelling}" is already an ingredient or another group`);
      }
      bySpelling.set(spelling, group);
    }
  }
  return bySpelling;
}

/** Every group, sorted by name. */
export const GROUPS: readonly IngredientGroup[] = [...entryGroups(), ...wordGroups()].sort((a, b) =>
  a.name < b.name ? -1 : 1,
);
const BY_SPELLING = groupsBySpelling(GROUPS);

/** The group a normalised spelling (normalizeSpelling) names, if any. */
export const groupNamed = (spelled: string): IngredientGroup | undefined => BY_SPELLING.get(spelled);
