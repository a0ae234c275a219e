// The slices of npm run mutate (docs/testing.md). Stryker runs a mutant's covering test files one process
// each, in the order given, and stops at the first that fails. So a slice lists only the tests written for
// its folder, the fast ones and those that kill most first: a surviving mutant runs every file that covers
// it, and the other families' tests reach much of the core through their imports at a second or more each.
// Each slice has its own incremental record under mutation/, kept in the repository, so a run from a clean
// clone re-tests only what changed since it was recorded, and a slice can be measured in one sitting.

export const slices = {
  // Measured whole on 2026-12-04 with the schema pin and the ten after it; a test added since re-runs only
  // the mutants that survived or were not covered.
  schemas: {
    mutate: ['schemas/**/*.ts'],
    testFiles: [
      // Written for the mutants the first run left: first, so those mutants meet their killer at once.
      'test/events/cursorMessages.test.ts',
      'test/wire/schemaHelpers.test.ts',
      // The checked-in OpenAPI and events.json documents: what the schema-building functions produce.
      'test/events/schemaIntegrity.test.ts',
      'test/wire/schemaDeclarations.test.ts',
      'test/events/cursor.test.ts',
      'test/cli/cursor.test.ts',
      'test/beads/eventMessage.test.ts',
      'test/beads/mail.test.ts',
      'test/beads/beadLine.test.ts',
      'test/config/cityTomlSchema.test.ts',
      'test/wire/bootstrapProfiles.test.ts',
      'test/wire/handWrittenWireTypes.test.ts',
      'test/events/internalEvents.test.ts',
      'test/events/schemaDocs.test.ts',
    ],
  },
  // machines/beads/ in two slices (each fits a sitting here): the deciders and the fold, and the reads
  // (indexes, queries, pages, mail views, the line codec and the start-up replay).
  beads: {
    mutate: [
      'machines/beads/**/*.ts',
      '!machines/beads/{beadLine,replay,indexes,queries,paging,mailQueries,mailView}.ts',
    ],
    testFiles: [
      'test/beads/acceptAll.test.ts',
      'test/beads/orderAndUndo.test.ts',
      'test/beads/shapeAndReady.test.ts',
      'test/beads/foldEdges.test.ts',
      'test/beads/patchKeeps.test.ts',
      'test/beads/convoys.test.ts',
      'test/beads/mailDecisions.test.ts',
      'test/beads/beadDecisions.test.ts',
      'test/beads/ids.test.ts',
      'test/beads/machine.test.ts',
      'test/beads/cycles.test.ts',
      'test/beads/replay.test.ts',
      'test/beads/property.test.ts',
    ],
  },
  beadReads: {
    mutate: ['machines/beads/{beadLine,replay,indexes,queries,paging,mailQueries,mailView}.ts'],
    testFiles: [
      // Written for the mutants the first run left, then for those the second left.
      'test/beads/beadLineKeys.test.ts',
      'test/beads/pageStrategies.test.ts',
      'test/beads/indexPlaces.test.ts',
      'test/beads/replayGrowth.test.ts',
      'test/beads/threadAndReply.test.ts',
      'test/beads/graphAndMailEdges.test.ts',
      'test/beads/replayPasses.test.ts',
      'test/beads/beadLineAnswers.test.ts',
      'test/beads/indexOracle.test.ts',
      'test/beads/listOracle.test.ts',
      'test/beads/mailReads.test.ts',
      'test/beads/beadLine.test.ts',
      'test/beads/machine.test.ts',
      'test/beads/replay.test.ts',
      'test/beads/convoys.test.ts',
      'test/beads/pagesAndGraphs.test.ts',
      'test/beads/snapshot.test.ts',
      'test/beads/property.test.ts',
    ],
  },
  sessions: {
    mutate: ['machines/sessions/**/*.ts'],
    testFiles: [
      'test/sessions/sessionEdges.test.ts',
      'test/sessions/deciderOutcomes.test.ts',
      'test/sessions/recordAndPlan.test.ts',
      'test/sessions/settingsMergeEdges.test.ts',
      'test/sessions/deciderGuards.test.ts',
      'test/sessions/machine.test.ts',
      'test/sessions/keyedWindow.test.ts',
      'test/sessions/thresholdsConfig.test.ts',
      'test/cities/overlays.test.ts',
    ],
  },
  formulas: {
    mutate: ['machines/formulas/**/*.ts', 'machines/sling/**/*.ts'],
    testFiles: [
      'test/formulas/parse.test.ts',
      'test/formulas/extendsRetry.test.ts',
      'test/formulas/slingDefaultFormula.test.ts',
      // Through the app in process: the layers, the rigs' formulas, the routes and sling.
      'test/formulas/retryRuntime.test.ts',
      'test/formulas/layers.test.ts',
      'test/formulas/rigLayers.test.ts',
      'test/formulas/sling.test.ts',
      'test/formulas/routes.test.ts',
    ],
  },
  orders: {
    mutate: ['machines/orders/**/*.ts'],
    testFiles: [
      'test/formulas/cronNext.test.ts',
      'test/formulas/scheduler.test.ts',
      'test/formulas/ordersConfig.test.ts',
      'test/formulas/ordersCondition.test.ts',
      // Through the app in process.
      'test/formulas/ordersLayers.test.ts',
      'test/formulas/ordersOrphans.test.ts',
      'test/formulas/rigOrders.test.ts',
      'test/formulas/ordersRoutes.test.ts',
    ],
  },
  config: {
    mutate: ['machines/config/**/*.ts'],
    testFiles: [
      'test/config/compose.test.ts',
      'test/config/imports.test.ts',
      'test/config/fragments.test.ts',
      'test/config/packTree.test.ts',
      'test/cities/upstreamExamples.test.ts',
      'test/runtimes/acp.config.test.ts',
      'test/config/cityTomlSchema.test.ts',
      'test/formulas/ordersConfig.test.ts',
      'test/cities/sessionProvider.test.ts',
      'test/config/writer.test.ts',
      'test/config/agentEdits.test.ts',
    ],
  },
  extmsg: {
    mutate: ['machines/extmsg/**/*.ts'],
    // delivery drives the deciders directly; messages and routes go through the app in process.
    testFiles: [
      'test/extmsg/unroutedAnswer.test.ts',
      'test/extmsg/membershipAndPages.test.ts',
      'test/extmsg/foldAndUndo.test.ts',
      'test/extmsg/outboundDecisions.test.ts',
      'test/extmsg/inboundRouting.test.ts',
      'test/extmsg/registryDecisions.test.ts',
      'test/extmsg/delivery.test.ts',
      'test/extmsg/messages.test.ts',
      'test/extmsg/routes.test.ts',
    ],
  },
  agents: {
    mutate: ['machines/agents/**/*.ts'],
    testFiles: [
      'test/agents/templates.test.ts',
      'test/agents/goTemplate.test.ts',
      'test/agents/goTemplateEdges.test.ts',
      'test/agents/awake.test.ts',
      'test/agents/agentMachine.test.ts',
      'test/agents/routedDemand.test.ts',
      'test/agents/poolEdges.test.ts',
      'test/agents/goTemplateScanner.test.ts',
      'test/cities/upstreamExamples.test.ts',
    ],
  },
  // The supervisor's own machines and the small families.
  core: {
    mutate: [
      'machines/*.ts',
      'machines/cityOps/**/*.ts',
      'machines/maintenance/**/*.ts',
      'machines/workspaceServices/**/*.ts',
    ],
    testFiles: [
      // Written for the mutants the first run left.
      'test/supervisor/cityMachineEdges.test.ts',
      'test/supervisor/requestAndSupervisorEdges.test.ts',
      'test/services/serviceSpecEdges.test.ts',
      'test/supervisor/cityOpEdges.test.ts',
      'test/maintenance/scheduleEdges.test.ts',
      'test/maintenance/schedule.test.ts',
      'test/supervisor/machines.test.ts',
      'test/supervisor/cityOpPolicy.test.ts',
      'test/supervisor/cityOpClaims.test.ts',
      'test/services/rules.test.ts',
      'test/logRuntime/groupCommit.test.ts',
    ],
  },
};
