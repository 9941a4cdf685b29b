/**
 * The ingredient knowledge base: what each canonical ingredient does for the scan's concerns, and which
 * caution lists it is on. Loaded once from the JSON data files beside this module and checked on load.
 * See README.md in this folder for the format and the reasoning behind the lists.
 */
import { isMeasure, type Measure } from '../../shared/measures.ts';
import activesData from './actives.json' with { type: 'json' };
import animalData from './animal-derived.json' with { type: 'json' };
import barrierData from './barrier-support.json' with { type: 'json' };
import dryingData from './drying-alcohols.json' with { type: 'json' };
import {
  compileAll,
  type EntryBase,
  EntryList,
  knowledgeError,
  type RawEntry,
  readEntries,
} from './entry-list.ts';
import fragranceData from './fragrance.json' with { type: 'json' };
import fungalData from './fungal-acne.json' with { type: 'json' };
import manifest from './manifest.json' with { type: 'json' };
import { matchesName } from './pattern.ts';
import poreData from './pore-clogging.json' with { type: 'json' };
import richData from './rich-texture.json' with { type: 'json' };

/** 1 = limited or indirect evidence, 2 = moderate, 3 = strong. */
export type Evidence = 1 | 2 | 3;

/** A product addresses a concern (lists it in `targets`) when its actives' evidence for it adds up to this. */
export { TARGET_EVIDENCE } from '../../match/engine/compile.ts';

/** Where an active only makes sense: UV filters protect only in a product meant for sun protection. */
export type ActiveContext = 'sun_protection';

export interface Active extends EntryBase {
  readonly concerns: Readonly<Partial<Record<Measure, Evidence>>>;
  readonly context: ActiveContext | null;
}

export interface Listed extends EntryBase {
  /** Sub-kind where a list has them (fragrance: fragrance, allergen, essential_oil). */
  readonly kind: string | null;
}

export const CAUTION_LISTS = [
  'fragrance',
  'drying-alcohols',
  'fungal-acne',
  'pore-clogging',
  'rich-texture',
  'animal-derived',
] as const;
export type CautionList = (typeof CAUTION_LISTS)[number];

const LIST_DATA: Record<CautionList, unknown> = {
  fragrance: fragranceData,
  'drying-alcohols': dryingData,
  'fungal-acne': fungalData,
  'pore-clogging': poreData,
  'rich-texture': richData,
  'animal-derived': animalData,
};

function toActive(raw: RawEntry): Active {
  const file = 'actives.json';
  const { concerns, context } = raw.fields;
  if (typeof concerns !== 'object' || concerns === null || Object.keys(concerns).length === 0) {
    knowledgeError(file, `active "${raw.name}" addresses no concern`);
  }
  for (const [measure, evidence] of Object.entries(concerns)) {
    if (!isMeasure(measure)) knowledgeError(file, `active "${raw.name}": unknown concern "${measure}"`);
    if (evidence !== 1 && evidence !== 2 && evidence !== 3) {
      knowledgeError(file, `active "${raw.name}": evidence for ${measure} must be 1, 2 or 3`);
    }
  }
  if (context !== undefined && context !== 'sun_protection') {
    knowledgeError(file, `active "${raw.name}": unknown context "${String(context)}"`);
  }
  return {
    name: raw.name,
    patterns: compileAll(file, raw.match),
    reason: raw.reason,
    concerns: concerns as Partial<Record<Measure, Evidence>>,
    context: context ?? null,
  };
}

function toListed(file: string, raw: RawEntry): Listed {
  const { kind } = raw.fields;
  if (kind !== undefined && typeof kind !== 'string')
    knowledgeError(file, `entry "${raw.name}": kind must be a string`);
  return { name: raw.name, patterns: compileAll(file, raw.match), reason: raw.reason, kind: kind ?? null };
}

/** An `except` reference to other entries: a test of whether a name belongs to one of them. */
type Reference = ((name: string) => boolean) | null;

/**
 * Turns `except` sources into tests. `@list/entry` refers to another list's entry, and `@list/kind:k` to
 * every entry of that kind (with that entry's own exceptions), so the fungal-acne list can spare essential
 * oils without repeating the fragrance list's patterns.
 */
function exceptionTests<T extends EntryBase>(
  file: string,
  raws: readonly RawEntry[],
  entries: readonly T[],
  resolve: (reference: string) => Reference,
): Map<T, ((name: string) => boolean)[]> {
  const tests = new Map<T, ((name: string) => boolean)[]>();
  raws.forEach((raw, index) => {
    const entry = entries[index];
    if (entry === undefined || raw.except.length === 0) return;
    const checks = raw.except.map((source) => {
      if (source.startsWith('@')) {
        const test = resolve(source.slice(1));
        if (test === null) knowledgeError(file, `unknown reference ${source}`);
        return test;
      }
      const patterns = compileAll(file, [source]);
      return (name: string) => patterns.some((pattern) => matchesName(pattern, name));
    });
    tests.set(entry, checks);
  });
  return tests;
}

function loadLists(): Record<CautionList, EntryList<Listed>> {
  const raws = new Map<CautionList, RawEntry[]>();
  const entries = new Map<CautionList, Listed[]>();
  for (const list of CAUTION_LISTS) {
    const file = `${list}.json`;
    const read = readEntries(file, LIST_DATA[list], 'entries');
    raws.set(list, read);
    entries.set(
      list,
      read.map((raw) => toListed(file, raw)),
    );
  }
  const lists = {} as Record<CautionList, EntryList<Listed>>;
  // Tests run after every list is built, so a reference may point to a list loaded later.
  const resolve = (reference: string): Reference => {
    const [list, name = ''] = reference.split('/', 2);
    const kind = name.startsWith('kind:') ? name.slice('kind:'.length) : null;
    const own = entries.get(list as CautionList) ?? [];
    const targets = own.filter((entry) => (kind === null ? entry.name === name : entry.kind === kind));
    if (targets.length === 0) return null;
    return (candidate) => {
      const found = lists[list as CautionList].find(candidate);
      return found !== null && targets.includes(found);
    };
  };
  for (const list of CAUTION_LISTS) {
    const own = entries.get(list) ?? [];
    lists[list] = new EntryList(own, exceptionTests(`${list}.json`, raws.get(list) ?? [], own, resolve));
  }
  return lists;
}

function loadBarrier(): EntryList<Listed> {
  const file = 'barrier-support.json';
  const entries = readEntries(file, barrierData, 'entries').map((raw) => toListed(file, raw));
  return new EntryList(entries, new Map());
}

const activeRaws = readEntries('actives.json', activesData, 'actives');
const activeEntries = activeRaws.map(toActive);

export const KNOWLEDGE = {
  /** Changes whenever any data file (or the synonym table) changes; derived products record it. */
  version: manifest.version,
  actives: new EntryList(
    activeEntries,
    exceptionTests('actives.json', activeRaws, activeEntries, () => null),
  ),
  lists: loadLists(),
  /** Barrier support, for the maintenance match of a scan with no concern. */
  barrier: loadBarrier(),
} as const;

export const KB_VERSION: string = KNOWLEDGE.version;
