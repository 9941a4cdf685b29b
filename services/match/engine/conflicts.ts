/**
 * Formulation conflicts: caution flags that work against a concern of the scan, or against the skin type
 * the person stated. Each costs a share of the score; a concern-triggered conflict costs its full share
 * only at the worst severity, in proportion to the concern's weight below that.
 */
import type { FormulationFlag, SkinType } from '../../catalog/derive.ts';
import type { Measure } from '../../shared/measures.ts';

interface ConcernConflict {
  readonly flag: FormulationFlag;
  readonly concern: Measure;
  readonly percent: number;
  readonly why: string;
}

interface SkinTypeConflict {
  readonly flag: FormulationFlag;
  readonly statedSkinType: SkinType;
  readonly percent: number;
  readonly why: string;
}

export type Conflict = ConcernConflict | SkinTypeConflict;

export const CONFLICTS: readonly Conflict[] = [
  {
    flag: 'fragrance',
    concern: 'redness',
    percent: 25,
    why: 'fragrance is the commonest irritant of reactive skin',
  },
  {
    flag: 'drying_alcohol',
    concern: 'redness',
    percent: 20,
    why: 'drying alcohols disrupt an already reactive barrier',
  },
  {
    flag: 'drying_alcohol',
    statedSkinType: 'dry',
    percent: 20,
    why: 'drying alcohols strip lipids dry skin lacks',
  },
  {
    flag: 'pore_clogging',
    concern: 'acne',
    percent: 25,
    why: 'highly comedogenic emollients can seed new blemishes',
  },
  {
    flag: 'pore_clogging',
    concern: 'pores',
    percent: 15,
    why: 'comedogenic emollients congest visible pores',
  },
  {
    flag: 'fungal_acne_trigger',
    concern: 'acne',
    percent: 10,
    why: 'breakouts may be Malassezia-driven; a scan cannot tell',
  },
  {
    flag: 'rich_texture',
    concern: 'oiliness',
    percent: 15,
    why: 'occlusive, oil-rich formulas add shine to oily skin',
  },
];

/**
 * Conflicts never take more than this share of a score, so a product that addresses the worst concern
 * always scores above one that addresses nothing.
 */
export const MAX_PENALTY_PERCENT = 60;
