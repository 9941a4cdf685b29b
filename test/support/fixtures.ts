/**
 * Test-only fixtures of core's data: a scan moved along its lifecycle as the scan worker would move it,
 * and a small catalog with known formulations. Nothing here is reachable from the services themselves.
 */
import type { RawProduct } from '../../services/catalog/derive.ts';
import type { Orm } from '../../services/core/db/orm.ts';
import { storePhoto } from '../../services/scan/photo-intake.ts';
import { concernsFromScores, type Measure } from '../../services/shared/measures.ts';

export async function setScanStatus(orm: Orm, runId: string, status: 'queued' | 'analyzing' | 'failed') {
  await orm.em
    .getConnection()
    .execute('update scans set status = ?, updated_at = now() where id = ?', [status, runId]);
}

/** Stores a photo for a scan as the upload page will: photo, `queued` and the analysis job at once. */
export async function uploadPhoto(orm: Orm, runId: string, image: Uint8Array, maxAttempts?: number) {
  await storePhoto(orm.em.fork(), runId, image, 'image/jpeg', maxAttempts);
}

/** Completes a scan with known scores, and the concerns inference would derive from them. */
export async function completeScan(orm: Orm, runId: string, scores: Partial<Record<Measure, number>>) {
  const concerns = concernsFromScores(scores).map((c) => c.name);
  await orm.em.getConnection().execute(
    `update scans set status = 'complete', progress = 100, stage = '', scores = ?, concerns = ?,
       completed_at = now(), updated_at = now() where id = ?`,
    [JSON.stringify(scores), JSON.stringify(concerns), runId],
  );
}

/** A healthy scan: every measure above its concern threshold, so no concern at all. */
export const HEALTHY_SCORES: Partial<Record<Measure, number>> = {
  acne: 90,
  redness: 90,
  dark_spots: 90,
  uneven_tone: 90,
  wrinkles: 90,
  pores: 90,
  texture: 90,
  dark_circles: 90,
  oiliness: 90,
  dullness: 90,
};

/** A scan with clear redness and acne and mild dark spots; everything else healthy. */
export const RED_ACNE_SCORES: Partial<Record<Measure, number>> = {
  acne: 35,
  redness: 30,
  dark_spots: 60,
  uneven_tone: 80,
  wrinkles: 85,
  pores: 75,
  texture: 70,
  dark_circles: 80,
  oiliness: 70,
  dullness: 75,
};

export const product = (id: string, fields: Partial<RawProduct>): RawProduct => ({
  product_id: id,
  name: `Test product ${id}`,
  brand: 'Testbrand',
  product_type: 'serum',
  country: 'France',
  image_url: null,
  product_url: `https://example.test/p/${id}`,
  buy_url: null,
  ingredients: null,
  skin_types: null,
  vegan: null,
  cruelty_free: null,
  demo: true,
  ...fields,
});

/** Demo products written for the tests: fictional, with formulations chosen to exercise the engine. */
export const TEST_CATALOG: RawProduct[] = [
  product('t-azelaic', {
    name: 'Calm Azelaic Serum',
    ingredients: 'Aqua, Azelaic Acid, Niacinamide, Glycerin, Panthenol, Allantoin, Xanthan Gum',
    vegan: true,
    cruelty_free: true,
  }),
  product('t-centella', {
    name: 'Centella Soothing Toner',
    product_type: 'toner',
    ingredients: 'Water, Centella Asiatica Extract, Madecassoside, Panthenol, Glycerin, Allantoin',
    vegan: true,
    cruelty_free: false,
  }),
  product('t-salicylic', {
    name: 'Clear Salicylic Cleanser',
    product_type: 'cleanser',
    brand: 'Otherbrand',
    ingredients: 'Aqua, Sodium Laureth Sulfate, Salicylic Acid, Zinc PCA, Parfum, Linalool',
    vegan: false,
    cruelty_free: true,
  }),
  product('t-fragrant', {
    name: 'Perfumed Rose Serum',
    ingredients: 'Aqua, Niacinamide, Alcohol Denat., Parfum, Rosa Damascena Flower Oil, Limonene',
  }),
  product('t-retinol', {
    name: 'Night Retinol Cream',
    product_type: 'moisturizer',
    ingredients: 'Aqua, Caprylic/Capric Triglyceride, Retinol, Shea Butter, Tocopherol, Cetearyl Alcohol',
  }),
  product('t-vitc', {
    name: 'Bright Vitamin C Serum',
    country: 'Korea',
    ingredients: 'Aqua, Ascorbic Acid, Ferulic Acid, Tocopherol, Glycerin',
  }),
  product('t-plain', {
    name: 'Plain Hydrating Gel',
    product_type: 'moisturizer',
    ingredients: 'Aqua, Glycerin, Carbomer, Sodium Hydroxide',
  }),
  product('t-spf', {
    name: 'Daily Barrier Fluid SPF 50',
    product_type: 'sunscreen',
    ingredients: 'Aqua, Zinc Oxide, Glycerin, Ceramide NP, Cholesterol, Squalane, Tocopherol',
  }),
  product('t-placeholder', {
    name: 'Boutique Toner',
    product_type: 'toner',
    ingredients: 'Visit the Testbrand boutique',
  }),
  product('t-nolist', { name: 'Mystery Balm', product_type: 'treatment', ingredients: null }),
];
