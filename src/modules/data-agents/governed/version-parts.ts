// Dataset versions, manifests and the two dataset workflows (issue 13 items 2, 10, 11), as one piece of the
// governed part: governed/index.ts spreads these lists into governedParts.
import { createContentPerformanceKnowledgebase } from './content-knowledgebase.ts';
import {
  createDatasetVersion,
  datasetVersionEvents,
  datasetVersionRecord,
  listDatasetVersionsOperation,
} from './dataset-versions.ts';
import {
  createDatasetManifest,
  datasetManifestRecord,
  listDatasetManifests,
  manifestEvents,
} from './manifests.ts';
import { proposeDataset } from './propose-dataset.ts';

export const versionParts = {
  operations: [
    listDatasetVersionsOperation,
    createDatasetVersion,
    listDatasetManifests,
    createDatasetManifest,
    proposeDataset,
    createContentPerformanceKnowledgebase,
  ],
  recordTypes: [datasetVersionRecord, datasetManifestRecord],
  events: [...datasetVersionEvents, ...manifestEvents],
};
