/**
 * Operator switches that every core replica must see alike, so they live in the database rather than in
 * each process's environment (e.g. `admissions_enabled`, toggled by `npm run admin`).
 */
import { defineEntity, p } from '@mikro-orm/core';

export const SettingSchema = defineEntity({
  name: 'Setting',
  tableName: 'settings',
  properties: {
    key: p.string().primary(),
    value: p.json<unknown>(),
    updatedAt: p
      .datetime()
      .onCreate(() => new Date())
      .onUpdate(() => new Date()),
  },
});

export class Setting extends SettingSchema.class {}
SettingSchema.setClass(Setting);
