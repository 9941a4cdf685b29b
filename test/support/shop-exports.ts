/**
 * Product exports as shop platforms write them, for the import tests: Shopify's product CSV (the classic
 * columns, and the newer template's names), WooCommerce's product exporter and an Open Beauty Facts
 * tab-separated dump, with their full header rows, quoting, HTML descriptions and products spanning several
 * rows. Shops, brands, products and links are invented.
 */

/** A CSV row as the platforms write it: a field holding a comma, quote or line break is quoted. */
export const csvRow = (cells: readonly string[]): string =>
  cells.map((cell) => (/[",\r\n]/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell)).join(',');

/**
 * Rows given as column → value, written under a header (absent columns empty): as CSV, or tab-separated
 * and never quoted.
 */
export function table(
  header: readonly string[],
  rows: readonly Record<string, string>[],
  tabs = false,
): string {
  for (const r of rows) for (const name of Object.keys(r)) if (!header.includes(name)) throw new Error(name);
  const row = tabs ? (cells: readonly string[]) => cells.join('\t') : csvRow;
  const lines = [row(header), ...rows.map((r) => row(header.map((name) => r[name] ?? '')))];
  return `${lines.join(tabs ? '\n' : '\r\n')}${tabs ? '\n' : '\r\n'}`;
}

// biome-ignore format: the rows as the export lays them out, a line a few columns
export const SHOPIFY_HEADER = [
  'Handle', 'Title', 'Body (HTML)', 'Vendor', 'Product Category', 'Type', 'Tags', 'Published',
  'Option1 Name', 'Option1 Value', 'Option2 Name', 'Option2 Value', 'Option3 Name', 'Option3 Value',
  'Variant SKU', 'Variant Grams', 'Variant Inventory Tracker', 'Variant Inventory Qty', 'Variant Inventory Policy',
  'Variant Fulfillment Service', 'Variant Price', 'Variant Compare At Price', 'Variant Requires Shipping',
  'Variant Taxable', 'Variant Barcode', 'Image Src', 'Image Position', 'Image Alt Text', 'Gift Card',
  'SEO Title', 'SEO Description', 'Google Shopping / Google Product Category', 'Variant Image',
  'Variant Weight Unit', 'Variant Tax Code', 'Cost per item', 'Included / United Kingdom', 'Status',
  'Ingredients (product.metafields.custom.ingredients)', 'Key ingredients (product.metafields.custom.key_ingredients)',
];

const CDN = 'https://cdn.shop.example/s/files/1/0001/0002/products';

/** Three products over seven rows: variants and images carry only the Handle and their own columns. */
// biome-ignore format: the rows as the export lays them out, a line a few columns
export const SHOPIFY_EXPORT = table(SHOPIFY_HEADER, [
  {
    Handle: 'dew-drop-serum', Title: 'Dew Drop Serum, 10% Niacinamide',
    'Body (HTML)': '<p>A light, fast-absorbing serum.</p>\n<p><strong>Key ingredients:</strong> Niacinamide, Zinc</p>',
    Vendor: 'Hanbit Dew', 'Product Category': 'Health & Beauty > Personal Care > Cosmetics > Skin Care',
    Type: 'Serum', Tags: 'cruelty-free, new-in, Vegan', Published: 'true', 'Option1 Name': 'Size',
    'Option1 Value': '30 ml', 'Variant SKU': 'HD-SER-30', 'Variant Grams': '60', 'Variant Price': '24.00',
    'Variant Requires Shipping': 'true', 'Variant Taxable': 'true', 'Image Src': `${CDN}/serum-front.jpg?v=1700000000`,
    'Image Position': '1', 'Image Alt Text': 'Serum bottle', 'Gift Card': 'false', Status: 'active',
    'Ingredients (product.metafields.custom.ingredients)': 'Aqua, Niacinamide, Glycerin, Zinc PCA, Phenoxyethanol',
    'Key ingredients (product.metafields.custom.key_ingredients)': 'Niacinamide',
  },
  { Handle: 'dew-drop-serum', 'Option1 Value': '50 ml', 'Variant SKU': 'HD-SER-50', 'Variant Price': '34.00',
    'Variant Image': `${CDN}/serum-50.jpg` },
  { Handle: 'dew-drop-serum', 'Image Src': `${CDN}/serum-back.jpg?v=1700000000`, 'Image Position': '2' },
  {
    Handle: 'barrier-cream', Title: 'Barrier Cream "Rich"',
    'Body (HTML)': '<p>A rich cream for dry, tight skin.</p>\n<h3>Ingredients</h3>\n<p>Aqua, Glycerin, Butyrospermum Parkii Butter, Ceramide NP, <em>Parfum</em>, Linalool</p>\n<h3>How to use</h3>\n<p>Apply morning and night.</p>',
    Vendor: 'Hanbit Dew', Type: '', 'Product Category': 'Health & Beauty > Personal Care > Cosmetics > Skin Care > Lotions & Moisturizers',
    Tags: 'bestseller', 'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant SKU': 'HD-CRM',
    'Variant Price': '28.00', 'Image Src': `${CDN}/cream.jpg`, 'Image Position': '1', Status: 'active',
  },
  { Handle: 'barrier-cream', 'Image Src': `${CDN}/cream-texture.jpg`, 'Image Position': '2' },
  {
    Handle: 'calm-toner', Title: 'Calm Toner', Vendor: 'Hanbit Dew', Type: 'Toner', Tags: 'vegan',
    'Body (HTML)': '<p>Made with natural ingredients: centella and green tea.</p>',
    'Option1 Name': 'Title', 'Option1 Value': 'Default Title', 'Variant SKU': 'HD-TON', 'Variant Price': '18.00',
    'Image Src': `${CDN}/toner.jpg`, 'Image Position': '1', Status: 'active',
  },
  { Handle: 'calm-toner', 'Image Src': `${CDN}/toner-2.jpg`, 'Image Position': '2' },
]);

/** Shopify's newer export template names the same columns otherwise. */
// biome-ignore format: the rows as the export lays them out, a line a few columns
export const SHOPIFY_NEWER_HEADER = [
  'Title', 'URL handle', 'Description', 'Vendor', 'Product category', 'Type', 'Tags', 'Published on online store',
  'Status', 'SKU', 'Barcode', 'Option1 name', 'Option1 value', 'Price', 'Compare-at price',
  'Product image URL', 'Image position', 'Image alt text', 'Variant image URL', 'SEO title', 'SEO description',
];

// biome-ignore format: the rows as the export lays them out, a line a few columns
export const SHOPIFY_NEWER_EXPORT = table(SHOPIFY_NEWER_HEADER, [
  {
    Title: 'Night Balm', 'URL handle': 'night-balm', Vendor: 'Hanbit Dew', Type: 'Balm', Tags: 'vegan',
    Description: '<details><summary>Ingredients</summary><p>Aqua, Squalane, Niacinamide, Panthenol, Tocopherol</p></details>',
    'Published on online store': 'TRUE', Status: 'Active', SKU: 'HD-BALM', 'Option1 name': 'Size',
    'Option1 value': '15 ml', Price: '21.00', 'Product image URL': `${CDN}/balm.jpg`, 'Image position': '1',
  },
  { 'URL handle': 'night-balm', SKU: 'HD-BALM-50', 'Option1 value': '50 ml', Price: '39.00' },
]);

// biome-ignore format: the rows as the export lays them out, a line a few columns
export const WOO_HEADER = [
  'ID', 'Type', 'SKU', 'Name', 'Published', 'Is featured?', 'Visibility in catalog', 'Short description',
  'Description', 'Date sale price starts', 'Date sale price ends', 'Tax status', 'Tax class', 'In stock?',
  'Stock', 'Backorders allowed?', 'Sold individually?', 'Weight (kg)', 'Allow customer reviews?',
  'Purchase note', 'Sale price', 'Regular price', 'Categories', 'Tags', 'Shipping class', 'Images',
  'Parent', 'Grouped products', 'Upsells', 'Cross-sells', 'External URL', 'Button text', 'Position', 'Brands',
  'Attribute 1 name', 'Attribute 1 value(s)', 'Attribute 1 visible', 'Attribute 1 global',
  'Attribute 2 name', 'Attribute 2 value(s)', 'Attribute 2 visible', 'Attribute 2 global',
];

const UPLOADS = 'https://lumen.shop.example/wp-content/uploads/2026/03';

/** A variable product with two variations, a simple product, an external one, and a lone variation. */
// biome-ignore format: the rows as the export lays them out, a line a few columns
export const WOO_EXPORT = `\ufeff${table(WOO_HEADER, [
  {
    ID: '101', Type: 'variable', SKU: 'LL-TONER', Name: 'Glow Toner, Gentle', Published: '1', 'Is featured?': '0',
    'Visibility in catalog': 'visible', 'Short description': '<p>A daily exfoliating toner.</p>',
    Description: '<p>Lactic acid smooths and brightens.</p>\n<h4>Ingredients</h4>\n<p>Aqua, Glycerin, Lactic Acid, Sodium Lactate, Parfum</p>\n<h4>How to use</h4>\n<p>Sweep over clean skin.</p>',
    'In stock?': '1', Categories: 'Skincare > Toners, Offers', Tags: 'Vegan', 'Tax status': 'taxable',
    Images: `${UPLOADS}/toner.jpg, ${UPLOADS}/toner-back.jpg`, Brands: 'Lumen Lab',
    'Attribute 1 name': 'Size', 'Attribute 1 value(s)': '100 ml, 200 ml', 'Attribute 1 visible': '1', 'Attribute 1 global': '1',
    'Attribute 2 name': 'Skin type', 'Attribute 2 value(s)': 'Oily, Combination', 'Attribute 2 visible': '1', 'Attribute 2 global': '0',
  },
  { ID: '102', Type: 'variation', SKU: 'LL-TONER-100', Name: 'Glow Toner, Gentle - 100 ml', Published: '1',
    'Regular price': '18', Parent: 'id:101', 'Attribute 1 name': 'Size', 'Attribute 1 value(s)': '100 ml', 'Attribute 1 global': '1' },
  { ID: '103', Type: 'variation', SKU: 'LL-TONER-200', Name: 'Glow Toner, Gentle - 200 ml', Published: '1',
    'Regular price': '28', Parent: 'LL-TONER', 'Attribute 1 name': 'Size', 'Attribute 1 value(s)': '200 ml', 'Attribute 1 global': '1' },
  {
    ID: '104', Type: 'simple, virtual', SKU: '', Name: 'Barrier Balm', Published: '1', 'Regular price': '22',
    Description: '<p>A balm for dry skin, with soothing ingredients.</p>', Categories: 'Skincare > Moisturisers',
    Tags: 'cruelty free, new', Images: `${UPLOADS}/balm.jpg`, Brands: 'Lumen Lab',
    'Attribute 1 name': 'Ingredients', 'Attribute 1 value(s)': 'Aqua, Butyrospermum Parkii Butter, Ceramide NP, 1\\,2-Hexanediol',
    'Attribute 1 visible': '1', 'Attribute 1 global': '0',
  },
  {
    ID: '105', Type: 'external', SKU: 'LL-SPF', Name: 'Sun Veil SPF 50', Published: '1', 'Regular price': '30',
    Categories: 'Skincare > Sunscreens, Skincare > Serums', 'External URL': 'https://partner.example/sun-veil',
    'Button text': 'Buy at partner', Brands: 'Lumen Lab, Partner Co', Description: '<p>Weightless daily sun protection.</p>',
  },
  { ID: '207', Type: 'variation', SKU: 'LL-LONE-30', Name: 'Lone Serum - 30 ml', Published: '1', 'Regular price': '19',
    Parent: 'id:200', Description: '<p><strong>Ingredients:</strong> Aqua, Glycerin, Panthenol</p>' },
])}`;

// biome-ignore format: the rows as the export lays them out, a line a few columns
export const OBF_HEADER = [
  'code', 'url', 'creator', 'created_t', 'created_datetime', 'last_modified_t', 'last_modified_datetime',
  'product_name', 'abbreviated_product_name', 'generic_name', 'quantity', 'packaging', 'packaging_tags',
  'brands', 'brands_tags', 'categories', 'categories_tags', 'categories_en', 'origins', 'origins_tags',
  'manufacturing_places', 'labels', 'labels_tags', 'labels_en', 'countries', 'countries_tags',
  'countries_en', 'ingredients_text', 'ingredients_tags', 'ingredients_analysis_tags', 'allergens',
  'traces', 'serving_size', 'states_tags', 'image_url', 'image_small_url', 'image_ingredients_url',
  'product_name_en', 'ingredients_text_en', 'ingredients_text_fr',
];

const OBF = 'https://world.openbeautyfacts.org/product';
const OBF_IMAGES = 'https://images.openbeautyfacts.org/images/products';

/** Tab-separated, never quoted: a quote is a character (`"Rich"` below). */
// biome-ignore format: the rows as the export lays them out, a line a few columns
export const OBF_EXPORT = table(
  OBF_HEADER,
  [
    {
      code: '3600000000017', url: `${OBF}/3600000000017/creme-visage-hydratante-maison-lila`, creator: 'contributor-1',
      created_t: '1700000000', product_name: 'Crème Visage Hydratante', quantity: '50 ml', brands: 'Maison Lila',
      brands_tags: 'maison-lila', categories: 'Hygiène,Cosmétiques,Crèmes visage',
      categories_tags: 'en:hygiene,en:cosmetics,en:face-creams', labels: 'Vegan,Cruelty free',
      labels_tags: 'en:vegan,en:cruelty-free', countries: 'France', countries_tags: 'en:france',
      ingredients_text: 'Aqua, Glycerin, Butyrospermum Parkii Butter, Niacinamide, Phenoxyethanol',
      ingredients_analysis_tags: 'en:vegan,en:palm-oil-free', image_url: `${OBF_IMAGES}/360/000/000/0017/front_fr.3.400.jpg`,
    },
    {
      code: '0012345678905', url: `${OBF}/0012345678905/clear-gel-cleanser`, product_name: '',
      product_name_en: 'Clear Gel Cleanser', brands: 'Brightwell,Brightwell Group',
      categories_tags: 'en:cosmetics,en:face-cleansers', labels_tags: 'en:no-parabens',
      countries_tags: 'en:united-kingdom,en:ireland', ingredients_text_en: 'Aqua, Sodium Laureth Sulfate, Salicylic Acid, Parfum',
      ingredients_analysis_tags: 'en:vegan',
    },
    {
      code: '5000000000001', url: `${OBF}/5000000000001/mist`, product_name: '"Rich" Rose Mist',
      brands_tags: 'misty', categories_tags: 'en:cosmetics,en:face-mists', countries_tags: 'en:united-kingdom',
    },
  ],
  true,
);

// biome-ignore format: the rows as the export lays them out, a line a few columns
export const MERCHANT_HEADER = [
  'id', 'title', 'description', 'link', 'image_link', 'additional_image_link', 'availability', 'price',
  'sale_price', 'brand', 'gtin', 'mpn', 'condition', 'google_product_category', 'product_type', 'item_group_id',
  'identifier_exists', 'shipping', 'custom_label_0',
];

const STORE = 'https://glow.shop.example';

/** A Google Merchant Center feed (tab-separated): a serum in two sizes (one item group), a cream, a sunscreen. */
// biome-ignore format: the rows as the export lays them out, a line a few columns
export const MERCHANT_ROWS: Record<string, string>[] = [
  {
    id: 'GS-30', title: 'Glow Serum 30 ml', link: `${STORE}/products/glow-serum?variant=30`,
    description: 'A brightening serum for dull skin. Ingredients: Aqua, Glycerin, Niacinamide, Zinc PCA, Phenoxyethanol',
    image_link: `${STORE}/img/glow-serum.jpg`, additional_image_link: `${STORE}/img/glow-serum-back.jpg`,
    availability: 'in_stock', price: '24.90 EUR', brand: 'Glow Lab', gtin: '4006000000011', condition: 'new',
    google_product_category: '567', product_type: 'Skincare > Serums', item_group_id: 'GS', custom_label_0: 'bestseller',
  },
  {
    id: 'GS-50', title: 'Glow Serum 50 ml', link: `${STORE}/products/glow-serum?variant=50`,
    description: 'A brightening serum for dull skin. Ingredients: Aqua, Glycerin, Niacinamide, Zinc PCA, Phenoxyethanol',
    image_link: `${STORE}/img/glow-serum-50.jpg`, availability: 'out_of_stock', price: '34.90 EUR', sale_price: '29.90 EUR',
    brand: 'Glow Lab', gtin: '4006000000028', condition: 'new', product_type: 'Skincare > Serums', item_group_id: 'GS',
  },
  {
    id: 'BC-1', title: 'Barrier Cream', link: `${STORE}/products/barrier-cream`, image_link: `${STORE}/img/cream.jpg`,
    description: 'A rich cream made with natural ingredients: shea and oat.', availability: 'in_stock',
    price: '1.234,56 EUR', brand: 'Glow Lab', identifier_exists: 'no', condition: 'new',
    google_product_category: 'Health & Beauty > Personal Care > Cosmetics > Skin Care > Lotions & Moisturizers',
  },
  {
    id: 'SPF-1', title: 'Mineral Sun Fluid SPF 50', link: `${STORE}/products/sun-fluid`, availability: 'preorder',
    description: 'Ingredients: Aqua, Zinc Oxide 20%, Glycerin, Tocopherol', price: '0 EUR',
    brand: 'Glow Lab', condition: 'new', shipping: 'DE:::4.95 EUR',
  },
];

const SHOP_CDN = 'https://cdn.shop.example/s/files/1/0001/products';

/** As /products.json answers (pretty-printed here): variants and images carried inside each product. */
export const SHOPIFY_PRODUCTS_JSON = JSON.stringify(
  {
    products: [
      {
        id: 7001,
        title: 'Dew Drop Serum',
        handle: 'dew-drop-serum',
        body_html:
          '<p>A light serum.</p>\n<h3>Ingredients</h3>\n<p>Aqua, Niacinamide, Glycerin, Zinc PCA, Phenoxyethanol</p>',
        published_at: '2026-01-02T10:00:00+00:00',
        vendor: 'Hanbit Dew',
        product_type: 'Serum',
        tags: ['cruelty-free', 'Vegan'],
        variants: [
          { id: 1, title: '30 ml', price: '24.00', sku: 'HD-SER-30' },
          { id: 2, title: '50 ml', price: '34.00', sku: 'HD-SER-50' },
        ],
        images: [
          { id: 11, position: 2, src: `${SHOP_CDN}/serum-back.jpg` },
          { id: 10, position: 1, src: `${SHOP_CDN}/serum.jpg` },
        ],
      },
      {
        id: 7002,
        title: 'Calm Toner',
        handle: 'calm-toner',
        body_html: '<p>Made with natural ingredients: centella and green tea.</p>',
        vendor: 'Hanbit Dew',
        product_type: 'Toner',
        tags: 'bestseller, new',
        images: [],
      },
      { id: 7003, title: 'Old Balm', handle: 'old-balm', status: 'archived', vendor: 'Hanbit Dew' },
      { id: 7004, title: 'Draft Mask', handle: 'draft-mask', published_at: null, vendor: 'Hanbit Dew' },
      { id: 7005, title: 'No Handle Gel', handle: '', vendor: 'Hanbit Dew' },
    ],
  },
  null,
  2,
);
