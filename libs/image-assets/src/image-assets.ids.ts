/** Prefix of contract section 3: image assets. Ids are `<prefix>_<ULID>` (IdGenerator); a prefix never changes once ids carry it. */
export const ImageAssetIdPrefix = {
  ImageAsset: 'img',
} as const;
