/**
 * A catalog product as stored: the source's fields as given, and everything derived from its INCI list
 * (see derive.ts) as one JSON document, re-derived on every import.
 */
import { defineEntity, p } from '@mikro-orm/core';
import type { DerivedProduct } from './derive.ts';

export const ProductSchema = defineEntity({
  name: 'Product',
  tableName: 'products',
  properties: {
    productId: p.string().primary(),
    name: p.string(),
    brand: p.string().nullable(),
    productType: p.string().nullable(),
    country: p.string().nullable(),
    imageUrl: p.string().nullable(),
    productUrl: p.string().nullable(),
    buyUrl: p.string().nullable(),
    ingredientsText: p.text().nullable(),
    declaredSkinTypes: p.json<string[]>().nullable(),
    vegan: p.boolean().nullable(),
    crueltyFree: p.boolean().nullable(),
    demo: p.boolean().default(false),
    derived: p.json<DerivedProduct>(),
    updatedAt: p.datetime(),
  },
});

export class Product extends ProductSchema.class {}
ProductSchema.setClass(Product);
